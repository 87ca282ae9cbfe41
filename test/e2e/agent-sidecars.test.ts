// Native sidecars (KEP-753) on real containerd 1.6 and 1.7: an init container with restartPolicy
// Always starts before the app container and runs beside it (the app waits for the sidecar's
// heartbeat in a shared emptyDir), shows in initContainerStatuses as started, is started again when
// it is stopped by hand (CRI StopContainer), is stopped once a Job-like pod's app has exited 0 (the
// pod Succeeds), and on deletion stops after the app container.
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { POD_UID } from "../../src/cri/labels";
import { useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const IMAGE = "localhost/nodeagent/busybox:1.35";

/**
 * A sidecar that writes a heartbeat into the shared emptyDir every second, and an app that waits for
 * it. On SIGTERM each appends "<name> <uptime>" to the host folder `out` before it exits; the app
 * takes 2 s to stop, so a sidecar stopped at the same time would be there first.
 */
const heartbeatPod = (name: string, o: { restartPolicy: string; app: string; out: string }) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: ${o.restartPolicy}
  terminationGracePeriodSeconds: 10
  initContainers:
    - name: beat
      image: ${IMAGE}
      restartPolicy: Always
      command: ["sh", "-c", "trap 'echo beat $(cut -d\\" \\" -f1 /proc/uptime) >> /out/stopped; exit 0' TERM; while true; do date +%s > /shared/heartbeat; sleep 1; done"]
      volumeMounts: [{ name: shared, mountPath: /shared }, { name: out, mountPath: /out }]
  containers:
    - name: app
      image: ${IMAGE}
      command: ["sh", "-c", ${JSON.stringify(`until [ -f /shared/heartbeat ]; do sleep 0.2; done; touch /shared/app-started; ${o.app}`)}]
      readinessProbe: { exec: { command: ["test", "-f", "/shared/app-started"] }, periodSeconds: 1 }
      volumeMounts: [{ name: shared, mountPath: /shared }, { name: out, mountPath: /out }]
  volumes:
    - name: shared
      emptyDir: {}
    - name: out
      hostPath: { path: ${o.out}, type: DirectoryOrCreate }
`;

const beat = (p: Pod) => p.status?.initContainerStatuses?.find((c) => c.name === "beat");
const app = (p: Pod) => p.status?.containerStatuses?.find((c) => c.name === "app");
const cid = (id: string | undefined) => (id ?? "").replace(/^[a-z]+:\/\//, "");

for (const version of ["1.6", "1.7"] as const) {
  describe(`native sidecars on containerd ${version}`, () => {
    const env = useAgent(version);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    test("the sidecar runs beside the app, is started again when stopped by hand, and on deletion stops after the app", async () => {
      const out = join(agent.dir, "out-web");
      mkdirSync(out, { recursive: true });
      agent.writeManifest(
        "web.yaml",
        heartbeatPod("web", {
          restartPolicy: "Always",
          out,
          app: "trap 'sleep 2; echo app $(cut -d\" \" -f1 /proc/uptime) >> /out/stopped; exit 0' TERM; while true; do sleep 1; done",
        }),
      );
      const up = await agent.waitPod(
        "web",
        "the app ready beside the sidecar",
        (p) => p.status?.phase === "Running" && app(p)?.ready === true && beat(p)?.state?.running !== undefined,
        60_000,
      );
      expect(beat(up)).toMatchObject({ name: "beat", started: true, ready: true, restartCount: 0 });
      expect(app(up)).toMatchObject({ ready: true, restartCount: 0 });
      expect(up.status?.conditions?.find((c) => c.type === "Initialized")?.status).toBe("True");
      // The sidecar was running before the app was created.
      expect(Date.parse(beat(up)!.state!.running!.startedAt!)).toBeLessThanOrEqual(Date.parse(app(up)!.state!.running!.startedAt!));

      // Stopped by hand (CRI StopContainer): the agent starts it again, the app goes on.
      const first = cid(beat(up)!.containerID);
      await node.client.stopContainer(first, 0);
      const again = await agent.waitPod(
        "web",
        "the sidecar started again",
        (p) => beat(p)?.restartCount === 1 && beat(p)?.state?.running !== undefined,
        60_000,
      );
      expect(cid(beat(again)!.containerID)).not.toBe(first);
      expect(beat(again)!.lastState?.terminated?.containerID).toContain(first);
      expect(app(again)).toMatchObject({ restartCount: 0, containerID: app(up)!.containerID });

      // Deleted: the app stops first (it takes 2 s), the sidecar after it.
      agent.removeManifest("web.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("web")), 60_000);
      const stopped = readFileSync(join(out, "stopped"), "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" "));
      // The first sidecar instance was stopped by hand with a 0 s grace: it may have logged too.
      const last = stopped.slice(-2);
      expect(last.map(([n]) => n)).toEqual(["app", "beat"]);
      expect(Number(last[1]![1])).toBeGreaterThanOrEqual(Number(last[0]![1]));
    }, 150_000);

    test("a Job-like pod (restartPolicy Never) whose app exits 0 Succeeds and its sidecar is stopped", async () => {
      const out = join(agent.dir, "out-job");
      mkdirSync(out, { recursive: true });
      agent.writeManifest("job.yaml", heartbeatPod("job", { restartPolicy: "Never", out, app: "sleep 2; exit 0" }));
      const done = await agent.waitPod("job", "Succeeded", (p) => p.status?.phase === "Succeeded", 60_000);
      expect(app(done)?.state?.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
      expect(beat(done)?.state?.terminated).toBeDefined();
      expect(beat(done)?.restartCount).toBe(0);
      const uid = done.metadata!.uid!;
      const cs = await node.client.listContainers({ labelSelector: { [POD_UID]: uid } });
      expect(cs.map((c) => c.state)).toEqual(["CONTAINER_EXITED", "CONTAINER_EXITED"]);
      // The sidecar was stopped (SIGTERM), not left to die with the sandbox, and is not started again.
      expect(readFileSync(join(out, "stopped"), "utf8")).toContain("beat ");
      // That nothing starts again can only be seen by waiting: a few of the agent's 1 s relists.
      await Bun.sleep(3000);
      expect((await node.client.listContainers({ labelSelector: { [POD_UID]: uid } })).filter((c) => c.state === "CONTAINER_RUNNING")).toHaveLength(0);
      expect((await agent.pod("job"))?.status?.phase).toBe("Succeeded");
      agent.removeManifest("job.yaml");
      await eventually("the pod to leave /pods", async () => !(await agent.pod("job")), 30_000);
    }, 120_000);
  });
}
