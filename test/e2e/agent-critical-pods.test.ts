// Critical pods as the kubelet's IsCriticalPod, and an evicted static pod that comes back (issue 24,
// finding 4), on real containerd 1.6 and 1.7. Every kubeadm control-plane manifest says
// `priorityClassName: system-node-critical` and carries no `priority` (nothing resolves the class of a
// static pod); the agent counts it as critical by the built-in class's name.
//
// The node is put under an always-met soft memory threshold (memory.available<1Ti, grace 1s): a
// kubeadm-style static pod (BestEffort, the class by name, no priority) stays Running, never
// restarted, while a BestEffort static pod is evicted (Failed, reason Evicted). The threshold is then
// lifted (the agent restarted with a threshold that is never met): once the eviction manager has
// measured the node without pressure, the evicted pod starts again, with a Normal EvictionRecovered
// event on it — the agent's departure from the kubelet (whose static pods are never evicted), so that
// a standalone node does not lose a service for good to a spike.
import { describe, expect, test } from "bun:test";
import type { EventList, Pod } from "kubernetes-types/core/v1";
import { running, TestAgent, useAgent } from "./agent-harness";
import { eventually } from "./proc";

// Both BestEffort. The evicted one tolerates the memory-pressure taint, so that the restarted agent's
// admission takes it back even if it is added while MemoryPressure is still reported.
const pod = (name: string, extra: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: kube-system
spec:
  terminationGracePeriodSeconds: 2
${extra}  containers:
    - name: main
      image: localhost/nodeagent/busybox:1.35
      command: ["sh", "-c", "exec sleep 3600"]
`;
const KUBEADM = "  priorityClassName: system-node-critical\n";
const TOLERATES = "  tolerations: [{ key: node.kubernetes.io/memory-pressure, operator: Exists, effect: NoSchedule }]\n";

const containerOf = (p: Pod) => p.status?.containerStatuses?.[0];

for (const version of ["1.6", "1.7"] as const) {
  describe(`critical pods under memory pressure on containerd ${version}`, () => {
    // First without any threshold: both pods start and run.
    const env = useAgent(version, () => ["--eviction-hard=", "--eviction-monitoring-period", "1s"]);

    test("a kubeadm-style static pod stays while a BestEffort one is evicted; the evicted one comes back once the threshold is lifted, with an EvictionRecovered event", async () => {
      const first = env.agent();
      first.writeManifest("kube-apiserver.yaml", pod("kube-apiserver", KUBEADM));
      first.writeManifest("besteffort.yaml", pod("besteffort", TOLERATES));
      for (const n of ["kube-apiserver", "besteffort"]) await first.waitPod(n, "running", running);
      const kubeadmBefore = (await first.pod("kube-apiserver"))!;
      await first.stop();

      const pressured = new TestAgent(first.node, [
        "--eviction-hard=",
        "--eviction-soft",
        "memory.available<1Ti",
        "--eviction-soft-grace-period",
        "memory.available=1s",
        "--eviction-max-pod-grace-period",
        "2",
        "--eviction-monitoring-period",
        "1s",
        "--eviction-pressure-transition-period",
        "5s",
      ]);
      await pressured.start();
      let evictedUid = "";
      try {
        const be = await pressured.waitPod("besteffort", "evicted", (p) => p.status?.phase === "Failed", 60_000);
        expect(be.status).toMatchObject({ phase: "Failed", reason: "Evicted" });
        expect(be.status!.message).toStartWith("The node was low on resource: memory. ");
        evictedUid = be.metadata!.uid!;
        // Further cycles find only the control-plane pod, and leave it.
        const after = pressured.proc.stderr.length;
        await eventually(
          "two more cycles that evict nothing",
          async () => (pressured.proc.stderr.slice(after).match(/unable to evict any pods from the node/g)?.length ?? 0) >= 2,
          30_000,
          250,
        );
        expect(pressured.proc.stderr).toContain('"msg":"eviction manager: cannot evict a critical pod","pod":"kube-system/kube-apiserver-');
        const k = (await pressured.pod("kube-apiserver"))!;
        expect(running(k)).toBe(true);
        expect(containerOf(k)?.containerID).toBe(containerOf(kubeadmBefore)?.containerID);
        expect(containerOf(k)?.restartCount).toBe(0);
        // Still Failed while the pressure lasts.
        expect((await pressured.pod("besteffort"))!.status?.phase).toBe("Failed");
      } finally {
        await pressured.stop();
      }

      // The threshold lifted: one that is never met, so the eviction manager measures the node and finds no pressure.
      const relieved = new TestAgent(first.node, ["--eviction-hard", "memory.available<1Ki", "--eviction-monitoring-period", "1s"]);
      await relieved.start();
      try {
        const back = await relieved.waitPod("besteffort", "running again", running, 60_000);
        // The same pod (its manifest never changed), started afresh.
        expect(back.metadata!.uid).toBe(evictedUid);
        expect(back.status?.reason).toBeUndefined();
        const events = await eventually(
          "the EvictionRecovered event",
          async () => {
            const list = (await (await relieved.fetch("/events")).json()) as EventList;
            const e = list.items.find((x) => x.involvedObject.uid === evictedUid && x.reason === "EvictionRecovered");
            return e ? e : undefined;
          },
          20_000,
          250,
        );
        expect(events).toMatchObject({ type: "Normal", message: "The node is no longer under memory pressure; the pod is started again" });
        expect(running((await relieved.pod("kube-apiserver"))!)).toBe(true);
        for (const n of ["kube-apiserver", "besteffort"]) relieved.removeManifest(`${n}.yaml`);
        await eventually("the pods to leave /pods", async () => (await relieved.pods()).length === 0, 30_000);
      } finally {
        await relieved.stop();
      }
    }, 240_000);
  });
}
