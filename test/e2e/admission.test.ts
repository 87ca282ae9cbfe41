// --max-pods enforced at admission (issue 12, finding 7), by the compiled agent on containerd 1.6 and
// 1.7: a static pod over the count is rejected as the kubelet's rejectPod does it (phase Failed,
// reason OutOfpods, "Pod was rejected: …", nothing created in the runtime), and a push over the count
// is refused with 403 before it is kept.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { POD_NAME } from "../../src/cri/labels";
import { NODE_NAME, manifest, running, useAgent } from "./agent-harness";

const TOKEN = "admission-token";

for (const version of ["1.6", "1.7"] as const) {
  describe(`admission on containerd ${version}`, () => {
    const { node, agent } = useAgent(version, (n) => {
      const file = join(n.rootDir, "push-token");
      writeFileSync(file, TOKEN, { mode: 0o600 });
      return ["--max-pods", "2", "--push-token-file", file];
    });

    test("a pod over --max-pods is Failed with OutOfpods and never reaches the runtime; a push over it is a 403", async () => {
      const a = agent();
      a.writeManifest("one.yaml", manifest("one", "exec sleep 3600"));
      a.writeManifest("two.yaml", manifest("two", "exec sleep 3600"));
      await a.waitPod("one", "running", running);
      await a.waitPod("two", "running", running);
      a.writeManifest("three.yaml", manifest("three", "exec sleep 3600"));
      const rejected = await a.waitPod("three", "rejected", (p) => p.status?.phase === "Failed");
      expect(rejected.status).toEqual({
        phase: "Failed",
        reason: "OutOfpods",
        message: "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
        qosClass: "BestEffort",
      });
      const sandboxes = await node().client.listPodSandbox();
      expect(sandboxes.filter((s) => s.labels[POD_NAME] === `three-${NODE_NAME}`)).toEqual([]);

      const push = await fetch(`${a.url}/pods`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` }, body: manifest("pushed", "exec sleep 3600") });
      expect(push.status).toBe(403);
      expect(((await push.json()) as { message: string }).message).toBe("OutOfpods: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2");
      expect(await a.pod("pushed")).toBeUndefined();
      // The running pods were never touched.
      expect(running((await a.pod("one"))!)).toBe(true);
      expect(running((await a.pod("two"))!)).toBe(true);
    }, 60_000);
  });
}
