// emptyDir sizeLimit on disk, enforced by the eviction manager's local-storage part, on real
// containerd 1.6 and 1.7: a static pod that writes 2 MiB into an emptyDir limited to 1Mi is evicted
// within the monitoring period (--eviction-monitoring-period 1s here; the kubelet's is 10 s) — phase
// Failed, reason Evicted, the kubelet's message, its container stopped and not started again — while
// a sibling pod within its own limit keeps running.
import { beforeAll, describe, expect, test } from "bun:test";
import { POD_UID } from "../../src/cri/labels";
import { running, useAgent, type TestAgent } from "./agent-harness";
import type { TestNode } from "./node";
import { eventually } from "./proc";

const withLimit = (name: string, bytes: number, grace: number) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: ${grace}
  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "head -c ${bytes} /dev/urandom > /scratch/fill && sync && sleep 3600"]
      volumeMounts: [{ name: scratch, mountPath: /scratch }]
  volumes:
    - name: scratch
      emptyDir: { sizeLimit: 1Mi }
`;

for (const version of ["1.6", "1.7"] as const) {
  describe(`emptyDir sizeLimit on containerd ${version}`, () => {
    const env = useAgent(version, () => ["--eviction-monitoring-period", "1s"]);
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(() => {
      node = env.node();
      agent = env.agent();
    });

    test("a pod writing 2 MiB into a 1Mi emptyDir is evicted (Failed, Evicted, the kubelet's message), its container stopped; a sibling within its limit runs on", async () => {
      agent.writeManifest("tidy.yaml", withLimit("tidy", 256 * 1024, 2));
      const tidy = await agent.waitPod("tidy", "running", running);
      agent.writeManifest("hog.yaml", withLimit("hog", 2 * 1024 * 1024, 30));
      const started = Date.now();
      const hog = await agent.waitPod("hog", "evicted", (p) => p.status?.phase === "Failed", 30_000);
      expect(hog.status).toMatchObject({ phase: "Failed", reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
      // Grace 0 (the runtime's 2 s minimum), not the spec's 30 s: well within the container start,
      // the write, one monitoring period and the kill.
      expect(Date.now() - started).toBeLessThan(25_000);
      const uid = hog.metadata!.uid!;
      const containers = await eventually("the evicted pod's container to stop", async () => {
        const cs = await node.client.listContainers({ labelSelector: { [POD_UID]: uid } });
        return cs.length > 0 && cs.every((c) => c.state === "CONTAINER_EXITED") ? cs : undefined;
      });
      // Stopped, not started again: one instance, and the status says it terminated.
      expect(containers).toHaveLength(1);
      const after = await agent.waitPod("hog", "its container reported terminated", (p) => !!p.status?.containerStatuses?.[0]?.state?.terminated);
      expect(after.status).toMatchObject({ phase: "Failed", reason: "Evicted" });
      // The sibling is untouched: same container, still running, never restarted.
      const t = await agent.pod("tidy");
      expect(running(t!)).toBe(true);
      expect(t!.status!.containerStatuses![0]!.containerID).toBe(tidy.status!.containerStatuses![0]!.containerID);
      expect(t!.status!.containerStatuses![0]!.restartCount).toBe(0);
      // It stays listed, Failed, until its source deletes it.
      agent.removeManifest("hog.yaml");
      await eventually("the evicted pod to leave /pods", async () => !(await agent.pod("hog")));
      agent.removeManifest("tidy.yaml");
      await eventually("the sibling to leave /pods", async () => !(await agent.pod("tidy")));
    }, 90_000);
  });
}
