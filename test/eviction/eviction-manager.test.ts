import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { EvictionManager, POD_CLEANUP_TIMEOUT_MS, type EvictionManagerOptions } from "../../src/eviction/eviction-manager";
import { parseEqualsMap, parseLangleMap, parseThresholds, type ThresholdMaps } from "../../src/eviction/thresholds";
import { FakeClock } from "../../src/util/clock";
import { FakeEvictionTarget, FakeNodeReclaim, FakeSummary, GI, MI, podStats } from "../fakes/eviction";
import { ALL_LEVELS, linesLog } from "../fakes/recording-log";

function pod(name: string, o: { memory?: string; priority?: number; grace?: number } = {}): Pod {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      containers: [{ name: "main", image: "busybox", resources: o.memory ? { requests: { memory: o.memory }, limits: { memory: o.memory } } : {} }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.grace !== undefined ? { terminationGracePeriodSeconds: o.grace } : {}),
    },
  };
}

function setup(maps: { hard?: string; soft?: string; grace?: string; reclaim?: string }, o: Partial<EvictionManagerOptions> = {}) {
  const clock = new FakeClock();
  const summary = new FakeSummary(clock);
  const target = new FakeEvictionTarget();
  const reclaim = new FakeNodeReclaim();
  const { log, lines } = linesLog(ALL_LEVELS);
  const thresholdMaps: ThresholdMaps = {
    hard: parseLangleMap(maps.hard ?? ""),
    ...(maps.soft ? { soft: parseLangleMap(maps.soft) } : {}),
    ...(maps.grace ? { softGracePeriod: parseEqualsMap(maps.grace) } : {}),
    ...(maps.reclaim ? { minimumReclaim: parseEqualsMap(maps.reclaim) } : {}),
  };
  const manager = new EvictionManager({
    thresholds: parseThresholds(thresholdMaps),
    summary,
    target,
    reclaim,
    clock,
    log,
    pressureTransitionPeriodMs: 60_000,
    ...o,
  });
  return { clock, summary, target, reclaim, manager, lines };
}

/** A BestEffort pod using 5Mi and a Guaranteed one using 1Mi of its 64Mi. */
function twoPods(s: ReturnType<typeof setup>) {
  const be = pod("besteffort");
  const gu = pod("guaranteed", { memory: "64Mi" });
  s.target.pods = [gu, be];
  s.summary.pods = [podStats(be, { main: { workingSet: 5 * MI } }), podStats(gu, { main: { workingSet: MI } })];
  return { be, gu };
}

describe("EvictionManager under memory pressure", () => {
  test("a hard threshold met: MemoryPressure, the BestEffort pod evicted first (grace 0, the kubelet's message), one pod per cycle", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    const evicted = await s.manager.synchronize();
    expect(evicted.map((p) => p.metadata!.name)).toEqual(["besteffort"]);
    expect(s.target.evictions).toEqual([
      {
        name: "besteffort",
        grace: 0,
        status: {
          reason: "Evicted",
          message: "The node was low on resource: memory. Container main was using 5Mi, which exceeds its request of 0. ",
          condition: "MemoryPressure",
        },
      },
    ]);
    expect([...s.manager.pressure()]).toEqual(["MemoryPressure"]);
    // Still under pressure next cycle: the Guaranteed pod goes then, its message without a container sentence.
    await s.clock.advance(10_000);
    await s.manager.synchronize();
    expect(s.target.evictions.map((e) => [e.name, e.status.message])).toEqual([
      ["besteffort", expect.any(String)],
      ["guaranteed", "The node was low on resource: memory. "],
    ]);
  });

  test("a threshold met records EvictionThresholdMet on the Node, 'Attempting to reclaim memory'", async () => {
    const events: string[] = [];
    const s = setup({ hard: "memory.available<1Gi" }, { events: (type, reason, message) => events.push(`${type} ${reason}: ${message}`) });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await s.manager.synchronize();
    expect(events).toEqual(["Warning EvictionThresholdMet: Attempting to reclaim memory"]);
  });

  test("no threshold met: nothing evicted, no condition", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 2 * GI };
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.manager.pressure().size).toBe(0);
  });

  test("the condition stays for the pressure transition period after the threshold was last met", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await s.manager.synchronize();
    expect(s.manager.pressure().has("MemoryPressure")).toBe(true);
    s.summary.node.memory = { capacity: 8 * GI, available: 4 * GI };
    await s.clock.advance(59_000);
    await s.manager.synchronize();
    expect(s.manager.pressure().has("MemoryPressure")).toBe(true);
    await s.clock.advance(1_000);
    await s.manager.synchronize();
    expect(s.manager.pressure().size).toBe(0);
  });

  test("critical pods are never evicted: the next in rank goes instead, and with only critical pods none", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    const crit = pod("critical", { priority: 2_000_000_000 });
    const other = pod("other", { memory: "64Mi" });
    s.target.pods = [crit, other];
    s.summary.pods = [podStats(crit, { main: { workingSet: 500 * MI } }), podStats(other, { main: { workingSet: MI } })];
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await s.manager.synchronize();
    expect(s.target.evictions.map((e) => e.name)).toEqual(["other"]);
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.target.evictions).toHaveLength(1);
    expect(s.lines.some((l) => l === "error eviction manager: cannot evict a critical pod pod=default/critical")).toBe(true);
  });

  test("a kubeadm-style static pod (priorityClassName system-node-critical, no priority) is critical and skipped; a BestEffort static pod goes", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    const kubeadm = pod("kube-apiserver");
    kubeadm.metadata!.annotations = { "kubernetes.io/config.source": "file" };
    kubeadm.spec!.priorityClassName = "system-node-critical";
    const be = pod("besteffort");
    be.metadata!.annotations = { "kubernetes.io/config.source": "file" };
    s.target.pods = [kubeadm, be];
    // The control-plane pod uses far more than the BestEffort one; its priority (the class's, by name) ranks it last.
    s.summary.pods = [podStats(kubeadm, { main: { workingSet: 900 * MI } }), podStats(be, { main: { workingSet: MI } })];
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await s.manager.synchronize();
    expect(s.target.evictions.map((e) => [e.name, e.status.condition])).toEqual([["besteffort", "MemoryPressure"]]);
    // Still under pressure with the control-plane pod alone: it is never evicted.
    await s.clock.advance(10_000);
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.target.evictions).toHaveLength(1);
    expect(s.lines.some((l) => l === "error eviction manager: cannot evict a critical pod pod=default/kube-apiserver")).toBe(true);
  });

  test("in a cluster every static pod is critical: one without a priority is not evicted", async () => {
    const s = setup({ hard: "memory.available<1Gi" }, { cluster: true });
    const st = pod("static");
    st.metadata!.annotations = { "kubernetes.io/config.source": "file" };
    s.target.pods = [st];
    s.summary.pods = [podStats(st, { main: { workingSet: 5 * MI } })];
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    expect(await s.manager.synchronize()).toEqual([]);
    // Standalone the same pod is evicted (the agent's documented departure).
    const t = setup({ hard: "memory.available<1Gi" });
    t.target.pods = [st];
    t.summary.pods = s.summary.pods;
    t.summary.node.memory = s.summary.node.memory;
    expect((await t.manager.synchronize()).map((p) => p.metadata!.name)).toEqual(["static"]);
  });

  test("observedPressure is unknown until a cycle has measured the node, then the conditions", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    expect(s.manager.observedPressure()).toBeUndefined();
    s.summary.node.memory = { capacity: 8 * GI, available: 4 * GI };
    await s.manager.synchronize();
    expect([...s.manager.observedPressure()!]).toEqual([]);
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await s.manager.synchronize();
    expect([...s.manager.observedPressure()!]).toEqual(["MemoryPressure"]);
    // No threshold at all: nothing to measure, never any pressure.
    expect([...setup({}).manager.observedPressure()!]).toEqual([]);
  });

  test("minimum reclaim: once met, the threshold keeps evicting until available ≥ threshold + minimum reclaim", async () => {
    const s = setup({ hard: "memory.available<1Gi", reclaim: "memory.available=1Gi" });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 900 * MI };
    await s.manager.synchronize();
    // Above the threshold now, below threshold + minimum reclaim: still acting.
    s.summary.node.memory = { capacity: 8 * GI, available: 1.5 * GI };
    await s.clock.advance(1_000);
    await s.manager.synchronize();
    expect(s.target.evictions.map((e) => e.name)).toEqual(["besteffort", "guaranteed"]);
    // Past it: no longer met.
    s.target.pods = [pod("late")];
    s.summary.node.memory = { capacity: 8 * GI, available: 2.1 * GI };
    await s.clock.advance(1_000);
    expect(await s.manager.synchronize()).toEqual([]);
  });

  test("without minimum reclaim, above the threshold is enough", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 900 * MI };
    await s.manager.synchronize();
    s.summary.node.memory = { capacity: 8 * GI, available: 1.5 * GI };
    expect(await s.manager.synchronize()).toEqual([]);
  });

  test("a soft threshold: the condition at once, an eviction only after its grace period, within min(the pod's grace, --eviction-max-pod-grace-period)", async () => {
    const s = setup({ soft: "memory.available<1Gi", grace: "memory.available=30s" }, { maxPodGracePeriodSeconds: 20 });
    const be = pod("besteffort", { grace: 45 });
    s.target.pods = [be];
    s.summary.pods = [podStats(be, { main: { workingSet: 5 * MI } })];
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.manager.pressure().has("MemoryPressure")).toBe(true);
    await s.clock.advance(29_000);
    expect(await s.manager.synchronize()).toEqual([]);
    await s.clock.advance(1_000);
    expect((await s.manager.synchronize()).map((p) => p.metadata!.name)).toEqual(["besteffort"]);
    expect(s.target.evictions[0]!.grace).toBe(20);
  });

  test("soft grace: the pod's own when shorter, or whatever it is with a negative maximum; a soft grace period of 0s makes it a hard threshold", async () => {
    for (const [max, own, want] of [
      [20, 5, 5],
      [-1, 45, 45],
      [0, 45, 0],
    ] as const) {
      const s = setup({ soft: "memory.available<1Gi", grace: "memory.available=1s" }, { maxPodGracePeriodSeconds: max });
      const p = pod("p", { grace: own });
      s.target.pods = [p];
      s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
      await s.manager.synchronize();
      await s.clock.advance(1_000);
      await s.manager.synchronize();
      expect(s.target.evictions[0]!.grace).toBe(want);
    }
    const h = setup({ soft: "memory.available<1Gi", grace: "memory.available=0s" }, { maxPodGracePeriodSeconds: 20 });
    h.target.pods = [pod("p", { grace: 45 })];
    h.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    await h.manager.synchronize();
    expect(h.target.evictions[0]!.grace).toBe(0);
  });

  test("stats that cannot be read: no decision, the conditions as they were", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    twoPods(s);
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    s.target.pods = [];
    await s.manager.synchronize();
    twoPods(s);
    s.summary.fail = new Error("runtime down");
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.manager.pressure().has("MemoryPressure")).toBe(true);
    expect(s.target.evictions).toEqual([]);
  });
});

describe("EvictionManager under disk and pid pressure", () => {
  test("a disk signal reclaims node-level resources first (dead containers, then images); relieved, no pod is evicted", async () => {
    const s = setup({ hard: "nodefs.available<10%" });
    twoPods(s);
    s.summary.node.nodefs = { capacity: 100 * GI, available: 5 * GI };
    s.reclaim.onReclaim = (what) => {
      if (what === "images") s.summary.node.nodefs = { capacity: 100 * GI, available: 30 * GI };
    };
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.reclaim.calls).toEqual(["containers", "images"]);
    expect(s.target.evictions).toEqual([]);
    expect(s.manager.pressure().has("DiskPressure")).toBe(true);
  });

  test("not relieved by reclaim: a pod is evicted, low on ephemeral-storage", async () => {
    const s = setup({ hard: "nodefs.available<10%" });
    const writer = pod("writer");
    s.target.pods = [writer];
    s.summary.pods = [podStats(writer, { main: { rootfs: 3 * MI, logs: MI } })];
    s.summary.node.nodefs = { capacity: 100 * GI, available: 5 * GI };
    await s.manager.synchronize();
    expect(s.reclaim.calls).toEqual(["containers", "images"]);
    expect(s.target.evictions.map((e) => e.status.message)).toEqual([
      "The node was low on resource: ephemeral-storage. Container main was using 4Mi, which exceeds its request of 0. ",
    ]);
    // The log says what was met and tried, in that order, with the signal, resource and pods as fields.
    const said = s.lines.filter((l) => !l.includes("node condition changed"));
    expect(said).toEqual([
      `warn eviction manager: threshold met, attempting to reclaim signal=nodefs.available observed="${5 * GI} available of ${100 * GI}" resource=ephemeral-storage`,
      'info eviction manager: pods ranked for eviction pods=["default/writer"]',
    ]);
    expect(s.lines.find((l) => l.includes("node condition changed"))).toStartWith(
      "info eviction manager: node condition changed condition=DiskPressure status=true signals=",
    );
  });

  test("with a dedicated image filesystem, nodefs signals reclaim nothing at node level", async () => {
    const s = setup({ hard: "nodefs.available<10%" }, { dedicatedImageFs: async () => true });
    twoPods(s);
    s.summary.node.nodefs = { capacity: 100 * GI, available: 5 * GI };
    await s.manager.synchronize();
    expect(s.reclaim.calls).toEqual([]);
    expect(s.target.evictions).toHaveLength(1);
  });

  test("memory is reclaimed before disk when both are met; pid.available makes PIDPressure and ranks by processes", async () => {
    const s = setup({ hard: "nodefs.available<10%,memory.available<1Gi,pid.available<100" });
    const { be } = twoPods(s);
    s.summary.node = {
      nodefs: { capacity: 100 * GI, available: 5 * GI },
      memory: { capacity: 8 * GI, available: 512 * MI },
      pids: { max: 1000, current: 950 },
    };
    await s.manager.synchronize();
    expect(s.reclaim.calls).toEqual([]);
    expect(s.target.evictions[0]!.status.message.startsWith("The node was low on resource: memory. ")).toBe(true);
    expect([...s.manager.pressure()]).toEqual(["MemoryPressure", "DiskPressure", "PIDPressure"]);
    expect(s.target.evictions[0]!.name).toBe(be.metadata!.name!);
  });
});

describe("EvictionManager loop", () => {
  test("after an eviction it waits for the pod's cleanup (polled every second), then cycles at once", async () => {
    const s = setup({ hard: "memory.available<1Gi" }, { monitoringPeriodMs: 10_000 });
    const { be } = twoPods(s);
    s.target.cleanupAtOnce = false;
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    const ac = new AbortController();
    const done = s.manager.run(ac.signal);
    await s.clock.advance(0);
    expect(s.target.evictions.map((e) => e.name)).toEqual(["besteffort"]);
    await s.clock.advance(5_000);
    // Not cleaned up yet: the Guaranteed pod is untouched, whatever the monitoring period.
    expect(s.target.evictions).toHaveLength(1);
    s.target.cleanedUp.add(be.metadata!.uid!);
    await s.clock.advance(1_000);
    expect(s.target.evictions.map((e) => e.name)).toEqual(["besteffort", "guaranteed"]);
    ac.abort();
    await s.clock.advance(POD_CLEANUP_TIMEOUT_MS);
    await done;
  });

  test("a pod never cleaned up is waited for 30 s at most", async () => {
    const s = setup({ hard: "memory.available<1Gi" });
    twoPods(s);
    s.target.cleanupAtOnce = false;
    s.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    const ac = new AbortController();
    const done = s.manager.run(ac.signal);
    await s.clock.advance(POD_CLEANUP_TIMEOUT_MS - 1_000);
    expect(s.target.evictions).toHaveLength(1);
    await s.clock.advance(1_000);
    expect(s.target.evictions).toHaveLength(2);
    expect(s.lines.some((l) => l === 'info eviction manager: timed out waiting for pods to be cleaned up pods=["default/besteffort"]')).toBe(true);
    ac.abort();
    await s.clock.advance(POD_CLEANUP_TIMEOUT_MS);
    await done;
  });

  test("no threshold at all: no stats are read, only the local-storage check runs; its eviction ends the cycle", async () => {
    let checks = 0;
    const s = setup({ hard: "" }, { localStorage: { synchronize: async () => (checks++, []) } });
    expect(await s.manager.synchronize()).toEqual([]);
    expect(checks).toBe(1);
    expect(s.summary.calls).toBe(0);
    const hog = pod("hog");
    const t = setup({ hard: "memory.available<1Gi" }, { localStorage: { synchronize: async () => [hog] } });
    twoPods(t);
    t.summary.node.memory = { capacity: 8 * GI, available: 512 * MI };
    expect(await t.manager.synchronize()).toEqual([hog]);
    expect(t.target.evictions).toEqual([]);
    // The conditions were still computed.
    expect(t.manager.pressure().has("MemoryPressure")).toBe(true);
  });
});
