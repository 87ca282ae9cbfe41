// Ephemeral containers (`kubectl debug`, issue 26) through the compiled binary on containerd 1.6 and
// 1.7, joined to the in-process test API server: a client adds one to a running pod through the pod's
// ephemeralcontainers subresource (the strategic merge patch kubectl and the conformance test send);
// the agent starts it in the pod, its status shows in ephemeralContainerStatuses, its log and exec
// and attach reach it through the agent's API, a targetContainerName sees the target's processes (and one
// without a target does not); one that exits is never started again; the same name again is refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContainerStatus, EphemeralContainer, Pod } from "kubernetes-types/core/v1";
import { AgentClient } from "../../src/client/agent-client";
import { runRemoteCommand } from "../../src/client/remote-command";
import { POD_UID } from "../../src/cri/labels";
import { TestApiServer, type KubernetesObject } from "../fakes/apiserver";
import { NODE_NAME, useAgent } from "./agent-harness";
import { eventually } from "./proc";

const BUSYBOX = "localhost/nodeagent/busybox:1.35";

const debugContainer = (name: string, script: string, over: Partial<EphemeralContainer> = {}): EphemeralContainer => ({
  name,
  image: BUSYBOX,
  command: ["sh", "-c", script],
  ...over,
});

for (const version of ["1.6", "1.7"] as const) {
  describe(`ephemeral containers on containerd ${version}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "nodeagent-cluster-ephemeral-"));
    let api: TestApiServer;
    const kubeconfig = join(dir, "node.kubeconfig");
    beforeAll(async () => {
      api = await TestApiServer.start();
      api.writeKubeconfig(kubeconfig, api.nodeToken(NODE_NAME));
    });
    afterAll(async () => {
      await api?.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    const { agent, node } = useAgent(version, () => ["--kubeconfig", kubeconfig, "--node-status-update-frequency", "2s"]);

    const storedPod = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
    const ephemeralStatus = (name: string, container: string): ContainerStatus | undefined =>
      storedPod(name)?.status?.ephemeralContainerStatuses?.find((s) => s.name === container);

    /** What kubectl debug sends: PATCH pods/<name>/ephemeralcontainers, a strategic merge patch, as a user. */
    async function addEphemeral(pod: string, ec: EphemeralContainer, method: "PATCH" | "PUT" = "PATCH", body?: unknown) {
      const resp = await fetch(`${api.url}/api/v1/namespaces/default/pods/${pod}/ephemeralcontainers`, {
        method,
        headers: {
          Authorization: `Bearer ${api.adminToken}`,
          "Content-Type": method === "PATCH" ? "application/strategic-merge-patch+json" : "application/json",
        },
        body: JSON.stringify(body ?? { spec: { ephemeralContainers: [ec] } }),
        tls: { ca: api.caPem },
      } as RequestInit);
      return { code: resp.status, body: (await resp.json()) as { message?: string; metadata?: { generation?: number } } };
    }

    async function exec(pod: string, container: string, command: string[]) {
      const client = new AgentClient({ server: agent().url, token: agent().token });
      const q = new URLSearchParams();
      for (const c of command) q.append("command", c);
      q.set("output", "1");
      q.set("error", "1");
      const { url, options } = client.websocket(`/exec/default/${pod}/${container}?${q}`);
      let out = "";
      const result = await runRemoteCommand(url, options, {
        stdout: (b) => (out += new TextDecoder().decode(b)),
        stderr: (b) => (out += new TextDecoder().decode(b)),
      });
      return { exitCode: result.exitCode, out };
    }

    const runtimeInstances = async (uid: string, name: string) =>
      (await node().client.listContainers({ labelSelector: { [POD_UID]: uid } })).filter((c) => c.metadata?.name === name);

    test("kubectl debug: the ephemeral container runs, its status shows, its log and exec reach it, it sees its target's processes", async () => {
      api.store.create("pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "target", namespace: "default" },
        spec: {
          nodeName: NODE_NAME,
          terminationGracePeriodSeconds: 1,
          containers: [{ name: "main", image: BUSYBOX, command: ["sleep", "3601"] }],
        },
      } as KubernetesObject);
      await eventually("the pod Running", async () => (storedPod("target")?.status?.phase === "Running" ? true : undefined), 90_000);
      expect(storedPod("target")!.metadata!.generation).toBe(1);

      const added = await addEphemeral(
        "target",
        debugContainer("debugger", "while true; do echo polo; sleep 1; done", { stdin: true, tty: true, targetContainerName: "main" }),
      );
      expect(added.code).toBe(200);
      expect(added.body.metadata?.generation).toBe(2);
      const status = await eventually(
        "the debugger running in ephemeralContainerStatuses",
        async () => {
          const s = ephemeralStatus("target", "debugger");
          return s?.state?.running ? s : undefined;
        },
        60_000,
      );
      expect(status).toMatchObject({ name: "debugger", image: BUSYBOX, ready: false, restartCount: 0 });
      expect(status.containerID).toMatch(/^containerd:\/\//);
      // The pod's own containers are untouched (the same instance runs).
      expect(storedPod("target")!.status!.containerStatuses![0]!.restartCount).toBe(0);

      const log = await eventually(
        "polo in the debugger's log",
        async () => {
          const r = await agent().fetch("/containerLogs/default/target/debugger");
          const text = await r.text();
          return r.status === 200 && text.includes("polo") ? text : undefined;
        },
        30_000,
      );
      expect(log).toContain("polo");

      const echoed = await exec("target", "debugger", ["/bin/echo", "marco"]);
      expect(echoed).toEqual({ exitCode: 0, out: "marco\n" });
      // targetContainerName: the target's PID namespace, so its process is visible.
      const ps = await exec("target", "debugger", ["ps", "-o", "args"]);
      expect(ps.out).toContain("sleep 3601");
    }, 150_000);

    test("one without a target has a PID namespace of its own; one that exits is not started again", async () => {
      const uid = storedPod("target")!.metadata!.uid!;
      expect((await addEphemeral("target", debugContainer("once", "echo done; exit 3"))).code).toBe(200);
      const done = await eventually("once terminated", async () => ephemeralStatus("target", "once")?.state?.terminated, 60_000);
      expect(done.exitCode).toBe(3);
      // Another addition makes the agent sync the pod again: 'once' is still its one instance.
      expect((await addEphemeral("target", debugContainer("plain", "sleep 3600"))).code).toBe(200);
      await eventually("plain running", async () => ephemeralStatus("target", "plain")?.state?.running, 60_000);
      expect(await runtimeInstances(uid, "once")).toHaveLength(1);
      expect(ephemeralStatus("target", "once")).toMatchObject({ restartCount: 0, state: { terminated: { exitCode: 3 } } });
      const ps = await exec("target", "plain", ["ps", "-o", "args"]);
      expect(ps.exitCode).toBe(0);
      expect(ps.out).not.toContain("sleep 3601");
      expect(storedPod("target")!.status!.phase).toBe("Running");
    }, 150_000);

    test("attach reaches an ephemeral container's own output", async () => {
      expect((await addEphemeral("target", debugContainer("ticker", "while true; do echo tick; sleep 0.2; done"))).code).toBe(200);
      await eventually("ticker running", async () => ephemeralStatus("target", "ticker")?.state?.running, 60_000);
      const client = new AgentClient({ server: agent().url, token: agent().token });
      const { url, options } = client.websocket("/attach/default/target/ticker?output=1&error=1");
      const ws = new WebSocket(url, { protocols: ["v4.channel.k8s.io"], headers: options.headers, tls: options.tls } as unknown as string[]);
      ws.binaryType = "arraybuffer";
      const got = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no output; got ${JSON.stringify(out)}`)), 15_000);
        ws.onmessage = (ev) => {
          const b = new Uint8Array(ev.data as ArrayBuffer);
          if (b[0] === 1) out += new TextDecoder().decode(b.subarray(1));
          if (out.includes("tick\ntick\n")) {
            clearTimeout(timer);
            resolve(out);
          }
        };
        ws.onerror = () => reject(new Error("websocket error"));
      });
      ws.close();
      expect(got).toContain("tick\ntick\n");
    }, 90_000);

    test("the same name again is refused (422) and nothing more starts", async () => {
      const uid = storedPod("target")!.metadata!.uid!;
      const changed = await addEphemeral("target", debugContainer("debugger", "echo other"));
      expect(changed.code).toBe(422);
      expect(changed.body.message).toStartWith(
        'Pod "target" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be changed',
      );
      const current = storedPod("target")!;
      const dup = structuredClone(current);
      dup.spec!.ephemeralContainers!.push(debugContainer("main", "true"));
      const put = await addEphemeral("target", debugContainer("main", "true"), "PUT", dup);
      expect(put.code).toBe(422);
      expect(put.body.message).toBe(`Pod "target" is invalid: spec.ephemeralContainers[4].name: Duplicate value: "main"`);
      expect(storedPod("target")!.spec!.ephemeralContainers!.map((c) => c.name)).toEqual(["debugger", "once", "plain", "ticker"]);
      expect(await runtimeInstances(uid, "debugger")).toHaveLength(1);
    }, 60_000);

    test("a deleted pod stops its ephemeral containers with it", async () => {
      const uid = storedPod("target")!.metadata!.uid!;
      api.store.delete("pods", "default", "target");
      await eventually("the pod gone from the API", async () => (storedPod("target") ? undefined : true), 60_000);
      const left = await node().client.listContainers({ labelSelector: { [POD_UID]: uid }, state: { state: "CONTAINER_RUNNING" } });
      expect(left).toEqual([]);
    }, 90_000);
  });
}
