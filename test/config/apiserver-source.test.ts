// ApiserverSource on a fake informer: nothing before the first list, mirror pods and other nodes'
// pods left out, one set per burst of changes, and the set unchanged while the informer only errs.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { ApiserverSource, PodConfig, type PodInformer, type SourceReport } from "../../src/config";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";

class FakeInformer implements PodInformer {
  hasSynced = false;
  pods: Pod[] = [];
  private cbs: Array<(e: "add" | "update" | "delete", p: Pod) => void> = [];
  private waiters: Array<() => void> = [];
  onChange(cb: (e: "add" | "update" | "delete", p: Pod) => void): void {
    this.cbs.push(cb);
  }
  list(): readonly Pod[] {
    return this.pods;
  }
  synced(): Promise<void> {
    return this.hasSynced ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
  listed(pods: Pod[]): void {
    this.pods = pods;
    this.hasSynced = true;
    for (const p of pods) for (const cb of this.cbs) cb("add", p);
    for (const w of this.waiters.splice(0)) w();
  }
  change(e: "add" | "update" | "delete", p: Pod): void {
    this.pods =
      e === "delete" ? this.pods.filter((x) => x.metadata?.uid !== p.metadata?.uid) : [...this.pods.filter((x) => x.metadata?.uid !== p.metadata?.uid), p];
    for (const cb of this.cbs) cb(e, p);
  }
}

const pod = (name: string, node = "n1", annotations?: Record<string, string>): Pod => ({
  metadata: { name, namespace: "default", uid: `uid-${name}`, annotations },
  spec: { nodeName: node, containers: [{ name: "c", image: "busybox" }] },
});
const turn = () => new Promise((r) => setImmediate(r));

describe("ApiserverSource", () => {
  test("delivers nothing before the first list, then the node's pods without mirror pods", async () => {
    const inf = new FakeInformer();
    const got: SourceReport[] = [];
    const src = new ApiserverSource(inf, "n1");
    src.start((r) => got.push(r));
    await turn();
    expect(got).toEqual([]);
    inf.listed([pod("a"), pod("b", "n2"), pod("static-n1", "n1", { "kubernetes.io/config.mirror": "abc" })]);
    await turn();
    await turn();
    expect(got).toHaveLength(1);
    expect(got[0]!.complete).toBe(true);
    expect(got[0]!.source).toBe("api");
    expect(got[0]!.pods.map((p) => p.metadata?.name)).toEqual(["a"]);
    expect(src.mirrorPods().map((p) => p.metadata?.name)).toEqual(["static-n1"]);
  });

  test("a burst of changes is one set; a delete removes the pod through PodConfig", async () => {
    const inf = new FakeInformer();
    const got: SourceReport[] = [];
    const src = new ApiserverSource(inf, "n1");
    src.start((r) => got.push(r));
    inf.listed([]);
    await turn();
    await turn();
    got.length = 0;
    inf.change("add", pod("a"));
    inf.change("add", pod("b"));
    inf.change("update", pod("a"));
    await turn();
    expect(got).toHaveLength(1);
    expect(got[0]!.pods.map((p) => p.metadata?.name).sort()).toEqual(["a", "b"]);

    const config = new PodConfig({ clock: new FakeClock(), log: createLogger("text", -1) });
    config.apply(got[0]!);
    inf.change("delete", pod("a"));
    await turn();
    const updates = config.apply(got.at(-1)!);
    expect(updates).toEqual([expect.objectContaining({ op: "REMOVE", pods: [expect.objectContaining({ metadata: expect.objectContaining({ name: "a" }) })] })]);
  });

  test("stopped, it delivers nothing more", async () => {
    const inf = new FakeInformer();
    const got: SourceReport[] = [];
    const src = new ApiserverSource(inf, "n1");
    src.start((r) => got.push(r));
    inf.listed([pod("a")]);
    src.stop();
    await turn();
    inf.change("add", pod("b"));
    await turn();
    expect(got).toEqual([]);
  });
});
