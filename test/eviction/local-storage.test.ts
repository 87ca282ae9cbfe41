import { describe, expect, test } from "bun:test";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { EVICTION_MONITORING_PERIOD_MS, LocalStorageEviction, type EvictionStatus, type EvictionTarget } from "../../src/eviction/local-storage";
import { FakeClock } from "../../src/util/clock";
import { FakeDiskUsage } from "../fakes/disk-usage";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";

const PODS_DIR = "/var/lib/nodeagent/pods";
const MI = 1024 * 1024;
const dir = (uid: string, name: string) => `${PODS_DIR}/${uid}/volumes/kubernetes.io~empty-dir/${name}`;

function pod(uid: string, volumes: Volume[], priority?: number): Pod {
  return {
    metadata: { name: `p-${uid}`, namespace: "default", uid },
    spec: { containers: [{ name: "app", image: "busybox" }], volumes, ...(priority !== undefined ? { priority } : {}) },
  };
}

/** The agent as the eviction manager sees it: a list of active pods, and evictions recorded. */
class FakeTarget implements EvictionTarget {
  pods: Pod[] = [];
  readonly evictions: { uid: string; status: EvictionStatus; grace: number }[] = [];
  activePods(): Pod[] {
    return this.pods;
  }
  evictPod(p: Pod, status: EvictionStatus, grace: number): boolean {
    this.evictions.push({ uid: p.metadata!.uid!, status, grace });
    // As the pod workers: an evicted pod is no longer active.
    this.pods = this.pods.filter((x) => x !== p);
    return true;
  }
}

function setup(pods: Pod[]) {
  const clock = new FakeClock();
  const usage = new FakeDiskUsage();
  const target = new FakeTarget();
  target.pods = pods;
  const { log, lines } = linesLog(ALL_LEVELS);
  const eviction = new LocalStorageEviction({ podsDir: PODS_DIR, usage, target, clock, log });
  return { clock, usage, target, eviction, lines };
}

describe("LocalStorageEviction (emptyDir sizeLimit, the kubelet's emptyDirLimitEviction)", () => {
  test("a disk emptyDir over its sizeLimit: the pod is evicted at once, reason Evicted, the kubelet's exact message", async () => {
    const { usage, target, eviction } = setup([pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }])]);
    usage.table.set(dir("u1", "scratch"), 2 * MI + 4096);
    const evicted = await eviction.synchronize();
    expect(evicted.map((p) => p.metadata!.uid)).toEqual(["u1"]);
    expect(target.evictions).toEqual([
      { uid: "u1", status: { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' }, grace: 0 },
    ]);
    // The walk may stop once it knows the limit is exceeded.
    expect(usage.asked).toEqual([{ path: dir("u1", "scratch"), stopAbove: MI }]);
  });

  test("the limit is printed as Go's Quantity.String() prints it: 0.5Gi as 512Mi, a plain 1048576 stays decimal", async () => {
    const { usage, target, eviction } = setup([
      pod("u1", [{ name: "data", emptyDir: { sizeLimit: "1048576" } }]),
      pod("u2", [{ name: "d", emptyDir: { sizeLimit: "0.5Gi" } }]),
    ]);
    usage.table.set(dir("u1", "data"), MI + 512);
    usage.table.set(dir("u2", "d"), 600 * MI);
    await eviction.synchronize();
    expect(target.evictions.map((e) => e.status.message)).toEqual([
      'Usage of EmptyDir volume "data" exceeds the limit "1048576". ',
      'Usage of EmptyDir volume "d" exceeds the limit "512Mi". ',
    ]);
  });

  test("usage at or under the limit keeps the pod", async () => {
    const { usage, target, eviction } = setup([
      pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }]),
      pod("u2", [{ name: "s", emptyDir: { sizeLimit: "1Mi" } }]),
    ]);
    usage.table.set(dir("u1", "scratch"), MI);
    usage.table.set(dir("u2", "s"), 4096);
    expect(await eviction.synchronize()).toEqual([]);
    expect(target.evictions).toEqual([]);
    expect(usage.asked.length).toBe(2);
  });

  test("an emptyDir without a (positive) sizeLimit is never measured nor evicted", async () => {
    const { usage, target, eviction } = setup([
      pod("u1", [
        { name: "a", emptyDir: {} },
        { name: "b", emptyDir: { sizeLimit: "0" } },
        { name: "c", hostPath: { path: "/tmp" } },
      ]),
    ]);
    usage.table.set(dir("u1", "a"), 100 * MI);
    usage.table.set(dir("u1", "b"), 100 * MI);
    expect(await eviction.synchronize()).toEqual([]);
    expect(usage.asked).toEqual([]);
    expect(target.evictions).toEqual([]);
  });

  test("a memory-backed emptyDir is never measured: its tmpfs is sized by the limit", async () => {
    const { usage, target, eviction } = setup([pod("u1", [{ name: "shm", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } }])]);
    usage.table.set(dir("u1", "shm"), 100 * MI);
    expect(await eviction.synchronize()).toEqual([]);
    expect(usage.asked).toEqual([]);
    expect(target.evictions).toEqual([]);
  });

  test("a volume not made yet (no folder) counts as nothing", async () => {
    const { usage, target, eviction } = setup([pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }])]);
    expect(await eviction.synchronize()).toEqual([]);
    expect(usage.asked.length).toBe(1);
    expect(target.evictions).toEqual([]);
  });

  test("the first offending volume in spec order names the eviction; each offending pod is evicted in the same cycle", async () => {
    const vols: Volume[] = [
      { name: "ok", emptyDir: { sizeLimit: "10Mi" } },
      { name: "first", emptyDir: { sizeLimit: "1Mi" } },
      { name: "second", emptyDir: { sizeLimit: "1Mi" } },
    ];
    const { usage, target, eviction } = setup([
      pod("u1", vols),
      pod("u2", [{ name: "x", emptyDir: { sizeLimit: "1Ki" } }]),
      pod("u3", [{ name: "y", emptyDir: { sizeLimit: "1Mi" } }]),
    ]);
    usage.table.set(dir("u1", "ok"), MI);
    usage.table.set(dir("u1", "first"), 2 * MI);
    usage.table.set(dir("u1", "second"), 2 * MI);
    usage.table.set(dir("u2", "x"), 8192);
    usage.table.set(dir("u3", "y"), 8192);
    await eviction.synchronize();
    expect(target.evictions.map((e) => [e.uid, e.status.message])).toEqual([
      ["u1", 'Usage of EmptyDir volume "first" exceeds the limit "1Mi". '],
      ["u2", 'Usage of EmptyDir volume "x" exceeds the limit "1Ki". '],
    ]);
    // "second" was not measured: the pod was already over.
    expect(usage.asked.map((a) => a.path)).not.toContain(dir("u1", "second"));
  });

  test("a pod no longer active (being deleted, already evicted) is not evicted again", async () => {
    const { usage, target, eviction } = setup([pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }])]);
    usage.table.set(dir("u1", "scratch"), 2 * MI);
    await eviction.synchronize();
    await eviction.synchronize();
    expect(target.evictions.map((e) => e.uid)).toEqual(["u1"]);
  });

  test("a critical pod (priority ≥ system-cluster-critical) is not evicted; the overrun is logged", async () => {
    const { usage, target, eviction, lines } = setup([pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }], 2_000_000_000)]);
    usage.table.set(dir("u1", "scratch"), 2 * MI);
    expect(await eviction.synchronize()).toEqual([]);
    expect(target.evictions).toEqual([]);
    expect(lines).toEqual([
      'error eviction manager: cannot evict a critical pod pod=default/p-u1 reason="Usage of EmptyDir volume \\"scratch\\" exceeds the limit \\"1Mi\\". "',
    ]);
  });

  test("a volume that cannot be measured is logged and skipped; the other pods are still checked", async () => {
    const { usage, target, eviction, lines } = setup([
      pod("u1", [{ name: "bad", emptyDir: { sizeLimit: "1Mi" } }]),
      pod("u2", [{ name: "s", emptyDir: { sizeLimit: "1Mi" } }]),
    ]);
    usage.table.set(dir("u1", "bad"), new Error("EACCES: permission denied"));
    usage.table.set(dir("u2", "s"), 2 * MI);
    await eviction.synchronize();
    expect(target.evictions.map((e) => e.uid)).toEqual(["u2"]);
    expect(lines).toEqual(['warn eviction manager: cannot measure the usage of an emptyDir pod=default/p-u1 volume=bad err="EACCES: permission denied"']);
  });

  test("run checks at once, then every monitoring period (10 s), until stopped", async () => {
    const { clock, usage, target, eviction } = setup([pod("u1", [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }])]);
    expect(eviction.monitoringPeriodMs).toBe(EVICTION_MONITORING_PERIOD_MS);
    const ac = new AbortController();
    const done = eviction.run(ac.signal);
    await clock.advance(0);
    expect(usage.asked.length).toBe(1);
    usage.table.set(dir("u1", "scratch"), 2 * MI);
    await clock.advance(EVICTION_MONITORING_PERIOD_MS - 1);
    expect(usage.asked.length).toBe(1);
    expect(target.evictions).toEqual([]);
    await clock.advance(1);
    expect(usage.asked.length).toBe(2);
    expect(target.evictions.map((e) => e.uid)).toEqual(["u1"]);
    ac.abort();
    await done;
    await clock.advance(EVICTION_MONITORING_PERIOD_MS * 3);
    expect(usage.asked.length).toBe(2);
  });
});
