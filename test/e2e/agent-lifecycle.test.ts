// The pod lifecycle (issue 18) on real containerd 1.6 and 1.7, the compiled agent joined to the test
// API server: a postStart exec hook writes a file the app waits for; a failing postStart hook kills
// the container (FailedPostStartHook logged) and it is restarted; a preStop httpGet reaches a server in
// the pod (busybox httpd, whose CGI leaves a file on a hostPath) before the container stops; a preStop
// sleep delays the stop; activeDeadlineSeconds 3 makes the pod Failed with DeadlineExceeded; a
// RuntimeClass whose handler is runc-alt (a second runc handler in the test containerd's config) runs
// the pod's sandbox on that handler, an unknown handler fails with containerd's error, and a missing
// RuntimeClass with the kubelet's; termination messages (file, FallbackToLogsOnError) reach the
// terminated state; a readiness gate holds Ready until a controller sets its condition in the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { POD_NAME } from "../../src/cri/labels";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const dir = mkdtempSync(join(tmpdir(), "nodeagent-lifecycle-"));
let api: TestApiServer;
const kubeconfig = join(dir, "node.kubeconfig");
beforeAll(async () => {
  api = await TestApiServer.start();
  api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
  for (const [name, handler] of [
    ["alt", "runc-alt"],
    ["bogus", "no-such-handler"],
  ]) {
    api.store.create("runtimeclasses", { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name }, handler } as KubernetesObject);
  }
});
afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const BUSYBOX = "localhost/nodeagent/busybox:1.35";

/** A static pod whose one container, main, exits at once on SIGTERM; `spec` and `container` are YAML lines added. */
function stoppablePod(name: string, grace: number, spec: string[], container: string[]): string {
  return [
    "apiVersion: v1",
    "kind: Pod",
    `metadata: { name: ${name} }`,
    "spec:",
    `  terminationGracePeriodSeconds: ${grace}`,
    ...spec.map((l) => `  ${l}`),
    "  containers:",
    "    - name: main",
    `      image: ${BUSYBOX}`,
    `      command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 0.2; done"]`,
    ...container.map((l) => `      ${l}`),
    "",
  ].join("\n");
}

/** The text of a container's first log file, from the agent's --pod-logs-dir. */
function containerLog(agent: TestAgent, pod: Pod, container: string, restart = 0): string {
  const logs = join(agent.dir, "logs");
  const folder = readdirSync(logs).find((f) => f.endsWith(`_${pod.metadata!.uid}`));
  const file = folder ? join(logs, folder, container, `${restart}.log`) : "";
  return file && existsSync(file) ? readFileSync(file, "utf8") : "";
}

for (const version of ["1.6", "1.7"] as const) {
  describe(`pod lifecycle on containerd ${version}`, () => {
    const env = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s", "--node-ip", "127.0.0.1"]);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    test("postStart exec runs right after the start: the app sees the file it wrote", async () => {
      agent.writeManifest(
        "poststart.yaml",
        `apiVersion: v1
kind: Pod
metadata: { name: poststart }
spec:
  terminationGracePeriodSeconds: 2
  containers:
    - name: main
      image: ${BUSYBOX}
      command: ["sh", "-c", "until [ -f /work/hook ]; do sleep 0.1; done; echo \\"app saw: $(cat /work/hook)\\"; exec sleep 3600"]
      volumeMounts: [{ name: work, mountPath: /work }]
      lifecycle:
        postStart: { exec: { command: ["sh", "-c", "echo written-by-poststart > /work/hook"] } }
  volumes: [{ name: work, emptyDir: {} }]
`,
      );
      const p = await agent.waitPod("poststart", "running and started", (x) => running(x) && x.status?.containerStatuses?.[0]?.started === true);
      await eventually("the app's line in its log", async () => containerLog(agent, p, "main").includes("app saw: written-by-poststart"));
      expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(0);
      agent.removeManifest("poststart.yaml");
      await eventually("the pod to go", async () => !(await agent.pod("poststart")));
    }, 60_000);

    test("a failing postStart hook: FailedPostStartHook logged, the container killed and restarted (restartPolicy Always)", async () => {
      agent.writeManifest(
        "badhook.yaml",
        stoppablePod("badhook", 2, [], ["lifecycle:", '  postStart: { exec: { command: ["sh", "-c", "echo no config >&2; exit 7"] } }']),
      );
      const p = await agent.waitPod("badhook", "restarted after its hook failed", (x) => (x.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, 60_000);
      expect(p.status?.containerStatuses?.[0]?.lastState?.terminated).toBeDefined();
      expect(agent.proc.stderr).toContain(
        `"msg":"FailedPostStartHook","pod":"default/badhook-${NODE_NAME}","container":"main","err":"Exec lifecycle hook ([sh -c echo no config >&2; exit 7]) for Container \\"main\\" in Pod \\"badhook-${NODE_NAME}_default(`,
      );
      expect(agent.proc.stderr).toContain("failed - error: command 'sh -c echo no config >&2; exit 7' exited with 7: no config");
      // Never started as far as the status goes: the hook fails every time.
      expect(p.status?.containerStatuses?.[0]?.ready).toBe(false);
      // The kubelet's events reach the API server: the hook's failure and the kill it caused.
      const events = await eventually("FailedPostStartHook and Killing events in the API", async () => {
        const mine = (api.store.list("events", "default") as { reason?: string; message?: string; involvedObject?: { name?: string } }[]).filter(
          (e) => e.involvedObject?.name === `badhook-${NODE_NAME}`,
        );
        return mine.some((e) => e.reason === "FailedPostStartHook") && mine.some((e) => e.reason === "Killing") ? mine : undefined;
      });
      expect(events.find((e) => e.reason === "FailedPostStartHook")?.message).toContain("Exec lifecycle hook ([sh -c echo no config >&2; exit 7])");
      expect(events.find((e) => e.reason === "Killing")?.message).toBe("FailedPostStartHook");
      agent.removeManifest("badhook.yaml");
      await eventually("the pod to go", async () => !(await agent.pod("badhook")));
    }, 90_000);

    test("preStop httpGet reaches the pod's own server (by port name) before the container stops", async () => {
      const host = mkdtempSync(join(tmpdir(), "nodeagent-prestop-"));
      try {
        const cgi = `#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho bye\\necho \\"preStop GET $REQUEST_URI\\" > /host/prestop\\n`;
        agent.writeManifest(
          "prestop-http.yaml",
          `apiVersion: v1
kind: Pod
metadata: { name: prestop-http }
spec:
  terminationGracePeriodSeconds: 10
  containers:
    - name: web
      image: ${BUSYBOX}
      command: ["sh", "-c", "mkdir -p /www/cgi-bin && printf '${cgi}' > /www/cgi-bin/quit && chmod +x /www/cgi-bin/quit && exec httpd -f -vv -p 8080 -h /www"]
      ports: [{ name: http, containerPort: 8080 }]
      volumeMounts: [{ name: host, mountPath: /host }]
      lifecycle:
        preStop: { httpGet: { path: /cgi-bin/quit, port: http } }
  volumes: [{ name: host, hostPath: { path: ${host}, type: Directory } }]
`,
        );
        await agent.waitPod("prestop-http", "running", running);
        expect(existsSync(join(host, "prestop"))).toBe(false);
        agent.removeManifest("prestop-http.yaml");
        await eventually("the pod to go", async () => !(await agent.pod("prestop-http")), 30_000);
        expect(readFileSync(join(host, "prestop"), "utf8").trim()).toBe("preStop GET /cgi-bin/quit");
      } finally {
        rmSync(host, { recursive: true, force: true });
      }
    }, 60_000);

    test("preStop sleep delays the stop by its seconds", async () => {
      agent.writeManifest("prestop-sleep.yaml", stoppablePod("prestop-sleep", 20, [], ["lifecycle:", "  preStop: { sleep: { seconds: 3 } }"]));
      await agent.waitPod("prestop-sleep", "running", running);
      const stopAsked = Date.now();
      agent.removeManifest("prestop-sleep.yaml");
      // The container keeps running through the sleep, then stops at once on SIGTERM.
      await eventually(
        "the container to stop",
        async () => {
          const cs = await node.client.listContainers({ labelSelector: { [POD_NAME]: `prestop-sleep-${NODE_NAME}` } });
          return cs.length === 0 || cs.every((c) => c.state === "CONTAINER_EXITED");
        },
        30_000,
        50,
      );
      const took = Date.now() - stopAsked;
      expect(took).toBeGreaterThanOrEqual(3_000);
      expect(took).toBeLessThan(15_000);
      await eventually("the pod to go", async () => !(await agent.pod("prestop-sleep")));
    }, 60_000);

    test("activeDeadlineSeconds 3: the pod is stopped, Failed with DeadlineExceeded", async () => {
      agent.writeManifest("deadline.yaml", stoppablePod("deadline", 2, ["activeDeadlineSeconds: 3"], []));
      await agent.waitPod("deadline", "running", running);
      const p = await agent.waitPod("deadline", "Failed", (x) => x.status?.phase === "Failed", 20_000);
      expect(p.status).toMatchObject({ phase: "Failed", reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" });
      const stopped = await agent.waitPod("deadline", "its container terminated", (x) => !!x.status?.containerStatuses?.[0]?.state?.terminated);
      expect(stopped.status?.phase).toBe("Failed");
      agent.removeManifest("deadline.yaml");
      await eventually("the pod to go", async () => !(await agent.pod("deadline")));
    }, 60_000);

    test("terminationMessagePath and FallbackToLogsOnError: the terminated state's message", async () => {
      agent.writeManifest(
        "messages.yaml",
        `apiVersion: v1
kind: Pod
metadata: { name: messages }
spec:
  terminationGracePeriodSeconds: 2
  restartPolicy: Never
  containers:
    - name: file
      image: ${BUSYBOX}
      command: ["sh", "-c", "printf 'config missing' > /dev/termination-log; exit 3"]
    - name: logs
      image: ${BUSYBOX}
      terminationMessagePolicy: FallbackToLogsOnError
      command: ["sh", "-c", "for i in $(seq 1 100); do echo line $i; done; exit 4"]
    - name: nonroot
      image: ${BUSYBOX}
      securityContext: { runAsUser: 1000 }
      terminationMessagePath: /dev/termination-custom-log
      command: ["sh", "-c", "printf 'DONE' > /dev/termination-custom-log"]
`,
      );
      const p = await agent.waitPod(
        "messages",
        "the three containers terminated",
        (x) => (x.status?.containerStatuses ?? []).length === 3 && x.status!.containerStatuses!.every((c) => c.state?.terminated),
      );
      const state = (name: string) => p.status!.containerStatuses!.find((c) => c.name === name)!.state!.terminated!;
      expect({ exitCode: state("file").exitCode, message: state("file").message }).toEqual({ exitCode: 3, message: "config missing" });
      expect(state("logs").exitCode).toBe(4);
      expect(state("logs").message).toStartWith("line 21\n");
      expect(state("logs").message).toEndWith("line 100\n");
      // A container running as uid 1000 writes its message at a path of its own (the file is 0666).
      expect({ exitCode: state("nonroot").exitCode, message: state("nonroot").message }).toEqual({ exitCode: 0, message: "DONE" });
      expect(p.status?.phase).toBe("Failed");
      agent.removeManifest("messages.yaml");
      await eventually("the pod to go", async () => !(await agent.pod("messages")));
    }, 60_000);

    test("readinessGates: Ready only once a controller sets the gate's condition True in the API", async () => {
      const name = `gated-${version.replace(".", "")}`;
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          terminationGracePeriodSeconds: 1,
          readinessGates: [{ conditionType: "example.com/gate" }],
          containers: [{ name: "main", image: BUSYBOX, command: ["sleep", "3600"] }],
        },
      } as KubernetesObject);
      const ready = (p: Pod | undefined) => p?.status?.conditions?.find((c) => c.type === "Ready");
      const stored = () => api.store.get("pods", "default", name) as Pod | undefined;
      try {
        const before = await eventually(
          "the pod running, not Ready, in the API",
          async () => {
            const p = stored();
            return p?.status?.phase === "Running" && ready(p)?.reason === "ReadinessGatesNotReady" ? p : undefined;
          },
          60_000,
        );
        expect(ready(before)).toMatchObject({ status: "False", message: 'corresponding condition of pod readiness gate "example.com/gate" does not exist.' });
        expect(before.status?.conditions?.find((c) => c.type === "ContainersReady")?.status).toBe("True");
        api.store.patchStatus("pods", "default", name, { status: { conditions: [{ type: "example.com/gate", status: "False" }] } });
        await eventually(
          "the gate's False status in Ready's message",
          async () => ready(stored())?.message === 'the status of pod readiness gate "example.com/gate" is not "True", but False',
        );
        api.store.patchStatus("pods", "default", name, { status: { conditions: [{ type: "example.com/gate", status: "True" }] } });
        await eventually("the pod Ready", async () => ready(stored())?.status === "True", 30_000);
        // The controller's condition is kept as it set it.
        expect(stored()?.status?.conditions?.find((c) => c.type === "example.com/gate")?.status).toBe("True");
      } finally {
        api.store.delete("pods", "default", name);
        await eventually(`pod ${name} to go`, async () => !(await agent.pod(name)), 30_000);
      }
    }, 120_000);

    test("runtimeClassName: the RuntimeClass's handler runs the sandbox; an unknown handler and a missing RuntimeClass fail the sandbox", async () => {
      const apiPod = (name: string, runtimeClassName: string): KubernetesObject =>
        ({
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name, namespace: "default" },
          spec: {
            nodeName: NODE_NAME,
            runtimeClassName,
            terminationGracePeriodSeconds: 1,
            containers: [{ name: "main", image: BUSYBOX, command: ["sleep", "3600"] }],
          },
        }) as KubernetesObject;
      const names = [`rc-alt-${version.replace(".", "")}`, `rc-bogus-${version.replace(".", "")}`, `rc-missing-${version.replace(".", "")}`];
      api.store.create("pods", apiPod(names[0]!, "alt"));
      api.store.create("pods", apiPod(names[1]!, "bogus"));
      api.store.create("pods", apiPod(names[2]!, "missing"));
      try {
        const alt = await agent.waitPod(names[0]!, "running", running, 60_000);
        const [sandbox] = await node.client.listPodSandbox({ labelSelector: { [POD_NAME]: names[0]! } });
        expect(sandbox?.runtimeHandler).toBe("runc-alt");
        expect(alt.status?.phase).toBe("Running");
        const waitingMessage = (x: Pod) => x.status?.containerStatuses?.[0]?.state?.waiting?.message ?? "";
        const bogus = await agent.waitPod(names[1]!, "its sandbox failed", (x) => waitingMessage(x).startsWith("Failed to create pod sandbox"));
        expect(bogus.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe("ContainerCreating");
        expect(waitingMessage(bogus)).toContain('no runtime for "no-such-handler" is configured');
        const missing = await agent.waitPod(names[2]!, "its sandbox failed", (x) => waitingMessage(x).startsWith("Failed to create pod sandbox"));
        expect(waitingMessage(missing)).toBe('Failed to create pod sandbox: runtimeclass.node.k8s.io "missing" not found');
        // Neither got a sandbox.
        for (const n of names.slice(1)) expect(await node.client.listPodSandbox({ labelSelector: { [POD_NAME]: n } })).toHaveLength(0);
      } finally {
        for (const n of names) api.store.delete("pods", "default", n);
        for (const n of names) await eventually(`pod ${n} to go`, async () => !(await agent.pod(n)), 30_000);
      }
    }, 120_000);
  });
}
