// Disk pressure on real containerd 1.6 and 1.7: with an imagefs threshold this machine is always under
// (--eviction-hard imagefs.available<99%), the eviction manager first reclaims at node level, as the
// kubelet's reclaimNodeLevelResources: every dead container, then every image no container uses — an
// extra image goes, busybox (in use) and the pause image stay — and only because that does not relieve
// the pressure does it evict a pod, with the kubelet's ephemeral-storage message. DiskPressure is on
// the Node, and a new pod is refused at admission (any pressure but memory refuses every pod).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { manifest, TestAgent } from "./agent-harness";
import { BUSYBOX_IMAGE, PAUSE_IMAGE, startNode, type TestNode } from "./node";
import { eventually } from "./proc";
import { importVictimImage, VICTIM_IMAGE } from "./victim-image";
import type { Node } from "kubernetes-types/core/v1";

const tags = async (node: TestNode) => (await node.client.listImages()).flatMap((i) => i.repoTags);

for (const version of ["1.6", "1.7"] as const) {
  describe(`disk pressure on containerd ${version}`, () => {
    let node: TestNode;
    let agent: TestAgent;
    beforeAll(async () => {
      node = await startNode(version);
      importVictimImage(node);
    });
    afterAll(async () => {
      await agent?.stop();
      agent?.cleanup();
      await node?.stop();
    });

    test("reclaim first (the unused image goes, images in use stay), then one pod is evicted for ephemeral-storage; DiskPressure on the Node; new pods refused", async () => {
      // First without thresholds, so that the pod starts (under pressure it would be refused).
      agent = new TestAgent(node, ["--eviction-hard="]);
      await agent.start();
      agent.writeManifest("app.yaml", manifest("app", "sleep 3600"));
      await agent.waitPod("app", "running", (p) => p.status?.phase === "Running", 60_000);
      expect(await tags(node)).toEqual(expect.arrayContaining([VICTIM_IMAGE, BUSYBOX_IMAGE, PAUSE_IMAGE]));
      expect(await agent.stop()).toBe(0);

      // Periodic image GC off (high threshold 100): only the eviction manager's reclaim can remove it; it
      // honours imageMinimumGCAge as the kubelet's DeleteUnusedImages does, so that is 0 here.
      agent = new TestAgent(node, [
        "--eviction-hard",
        "imagefs.available<99%",
        "--eviction-monitoring-period",
        "1s",
        "--eviction-pressure-transition-period",
        "5s",
        "--image-gc-high-threshold",
        "100",
        "--image-gc-low-threshold",
        "99",
        "--minimum-image-ttl-duration",
        "0s",
      ]);
      await agent.start();
      await eventually("the unused image reclaimed", async () => !(await tags(node)).includes(VICTIM_IMAGE), 30_000, 250).catch((e) => {
        console.error(agent.proc.lines.join("\n") + agent.proc.stderr);
        throw e;
      });
      expect(await tags(node)).toEqual(expect.arrayContaining([BUSYBOX_IMAGE, PAUSE_IMAGE]));
      const evicted = await agent.waitPod("app", "evicted", (p) => p.status?.phase === "Failed", 30_000);
      expect(evicted.status).toMatchObject({ reason: "Evicted" });
      expect(evicted.status?.message).toMatch(/^The node was low on resource: ephemeral-storage\. /);
      // The reclaim came before the eviction: the log says so in that order.
      const log = agent.proc.lines.join("\n") + agent.proc.stderr;
      const reclaim = log.indexOf('"msg":"eviction manager: threshold met, attempting to reclaim","signal":"imagefs.available"');
      expect(reclaim).toBeGreaterThanOrEqual(0);
      expect(log.indexOf('"msg":"eviction manager: pods ranked for eviction"')).toBeGreaterThan(reclaim);
      const n = (await (await agent.fetch("/node")).json()) as Node;
      expect(n.status?.conditions?.find((c) => c.type === "DiskPressure")).toMatchObject({ status: "True", reason: "KubeletHasDiskPressure" });
      agent.writeManifest("late.yaml", manifest("late", "sleep 3600"));
      const late = await agent.waitPod("late", "refused", (p) => p.status?.phase === "Failed", 30_000);
      expect(late.status).toMatchObject({ reason: "Evicted", message: expect.stringContaining("The node had condition: [DiskPressure]. ") });
      agent.removeManifest("late.yaml");
      agent.removeManifest("app.yaml");
      await eventually("the pods to leave /pods", async () => (await agent.pods()).length === 0, 30_000);
    }, 150_000);
  });
}
