import { describe, expect, test } from "bun:test";
import {
  DEFAULT_EVICTION_HARD,
  hardEvictionReservation,
  nodeConditions,
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  parseEqualsMap,
  parseLangleMap,
  parseThresholds,
  ThresholdEntryError,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  type Threshold,
} from "../../src/eviction/thresholds";
import { makeSignalObservations } from "../../src/eviction/signals";
import { FakeClock } from "../../src/util/clock";
import { FakeSummary, GI, MI } from "../fakes/eviction";

const hard = (text: string) => parseThresholds({ hard: parseLangleMap(text) });

function entryError(f: () => unknown): { setting: string; entry: string; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof ThresholdEntryError) return { setting: e.setting, entry: e.entry, message: e.message };
    throw e;
  }
  throw new Error("no error");
}

describe("parsing thresholds (ParseThresholdConfig)", () => {
  test("the kubelet's default --eviction-hard: quantities in bytes, percentages as float32 fractions", () => {
    const ts = hard(DEFAULT_EVICTION_HARD);
    expect(ts.map((t) => [t.signal, t.value, t.gracePeriodMs])).toEqual([
      ["memory.available", { quantity: 100 * MI }, 0],
      ["nodefs.available", { percentage: Math.fround(0.1) }, 0],
      ["nodefs.inodesFree", { percentage: Math.fround(0.05) }, 0],
      ["imagefs.available", { percentage: Math.fround(0.15) }, 0],
    ]);
  });

  test("the empty flag is no threshold; 0% and 100% are ignored; a repeated signal takes the last value", () => {
    expect(hard("")).toEqual([]);
    expect(hard("nodefs.available<0%,imagefs.available<100%")).toEqual([]);
    expect(hard("memory.available<1Gi,memory.available<2Gi").map((t) => t.value)).toEqual([{ quantity: 2 * GI }]);
  });

  test("soft thresholds take their grace period and minimum reclaims attach to hard and soft alike", () => {
    const ts = parseThresholds({
      hard: parseLangleMap("memory.available<100Mi"),
      soft: parseLangleMap("memory.available<1Gi,pid.available<1k"),
      softGracePeriod: parseEqualsMap("memory.available=1m30s,pid.available=0s,nodefs.available=1m"),
      minimumReclaim: parseEqualsMap("memory.available=500Mi,pid.available=5%"),
    });
    expect(ts).toEqual([
      { signal: "memory.available", value: { quantity: 100 * MI }, gracePeriodMs: 0, minReclaim: { quantity: 500 * MI } },
      { signal: "memory.available", value: { quantity: GI }, gracePeriodMs: 90_000, minReclaim: { quantity: 500 * MI } },
      { signal: "pid.available", value: { quantity: 1000 }, gracePeriodMs: 0, minReclaim: { percentage: Math.fround(0.05) } },
    ]);
  });

  test("mistakes name the setting, the entry and what is wrong, in the kubelet's words", () => {
    expect(entryError(() => hard("memory.free<1Gi"))).toEqual({
      setting: "hard",
      entry: "memory.free<1Gi",
      message: "unsupported eviction signal memory.free",
    });
    expect(entryError(() => hard("memory.available<0"))).toMatchObject({
      entry: "memory.available<0",
      message: "eviction threshold memory.available must be positive: 0",
    });
    expect(entryError(() => hard("nodefs.available<120%")).message).toBe("eviction percentage threshold nodefs.available must be <= 100%: 120%");
    expect(entryError(() => hard("nodefs.available<-5%")).message).toBe("eviction percentage threshold nodefs.available must be >= 0%: -5%");
    expect(entryError(() => hard("memory.available<lots")).message).toContain('memory.available: "lots"');
    expect(entryError(() => parseThresholds({ hard: new Map(), soft: parseLangleMap("memory.available<1Gi") }))).toEqual({
      setting: "soft",
      entry: "memory.available",
      message: "grace period must be specified for the soft eviction threshold memory.available",
    });
    expect(entryError(() => parseThresholds({ hard: new Map(), softGracePeriod: parseEqualsMap("memory.available=-1s") })).message).toBe(
      "invalid eviction grace period specified: -1s, must be a positive value",
    );
    expect(entryError(() => parseThresholds({ hard: new Map(), minimumReclaim: parseEqualsMap("memory.available=-1Mi") })).message).toBe(
      "negative eviction minimum reclaim specified for memory.available",
    );
    expect(entryError(() => parseThresholds({ hard: new Map(), minimumReclaim: parseEqualsMap("nodefs.available=0%") })).message).toBe(
      "eviction percentage minimum reclaim nodefs.available must be positive: 0%",
    );
    expect(() => parseLangleMap("memory.available=1Gi")).toThrow('malformed pair "memory.available=1Gi", expect string<string');
  });
});

describe("signals (makeSignalObservations)", () => {
  test("each signal from the summary: memory capacity = available + working set, pids maxpid − curproc", async () => {
    const summary = new FakeSummary(new FakeClock());
    summary.node = {
      memory: { capacity: 8 * GI, available: 3 * GI },
      pods: { capacity: 6 * GI, available: 5 * GI },
      nodefs: { capacity: 100 * GI, available: 40 * GI, inodes: 1000, inodesFree: 300 },
      imagefs: { capacity: 50 * GI, available: 10 * GI },
      pids: { max: 4096, current: 1000 },
    };
    const { observations } = makeSignalObservations(await summary.get());
    const pick = (k: keyof typeof observations) => ({ available: observations[k]!.available, capacity: observations[k]!.capacity });
    expect(pick("memory.available")).toEqual({ available: 3 * GI, capacity: 8 * GI });
    expect(pick("allocatableMemory.available")).toEqual({ available: 5 * GI, capacity: 6 * GI });
    expect(pick("nodefs.available")).toEqual({ available: 40 * GI, capacity: 100 * GI });
    expect(pick("nodefs.inodesFree")).toEqual({ available: 300, capacity: 1000 });
    expect(pick("imagefs.available")).toEqual({ available: 10 * GI, capacity: 50 * GI });
    expect(observations["imagefs.inodesFree"]).toBeUndefined();
    expect(pick("pid.available")).toEqual({ available: 3096, capacity: 4096 });
  });
});

describe("thresholds met, grace periods, minimum reclaim, conditions", () => {
  const obs = (available: number, capacity = 10 * GI) => ({ "memory.available": { available, capacity, time: 0 } });

  test("a quantity is met below it; a percentage is of capacity; an unobserved signal meets nothing", () => {
    const [q] = hard("memory.available<1Gi");
    expect(thresholdsMet([q!], obs(GI - 1), false)).toEqual([q!]);
    expect(thresholdsMet([q!], obs(GI), false)).toEqual([]);
    const [p] = hard("memory.available<25%");
    expect(thresholdsMet([p!], obs(2.4 * GI), false)).toEqual([p!]);
    expect(thresholdsMet([p!], obs(2.6 * GI), false)).toEqual([]);
    expect(thresholdsMet([q!], {}, false)).toEqual([]);
  });

  test("with minimum reclaim enforced, a threshold stays met until available ≥ value + minimum reclaim", () => {
    const [t] = parseThresholds({ hard: parseLangleMap("memory.available<1Gi"), minimumReclaim: parseEqualsMap("memory.available=512Mi") });
    expect(thresholdsMet([t!], obs(1.2 * GI), false)).toEqual([]);
    expect(thresholdsMet([t!], obs(1.2 * GI), true)).toEqual([t!]);
    expect(thresholdsMet([t!], obs(1.5 * GI), true)).toEqual([]);
  });

  test("a soft threshold acts only once met for its grace period; the first observation is kept while it stays met", () => {
    const [t] = parseThresholds({ hard: new Map(), soft: parseLangleMap("memory.available<1Gi"), softGracePeriod: parseEqualsMap("memory.available=30s") });
    let first = thresholdsFirstObservedAt([t!], new Map(), 1_000);
    expect(thresholdsMetGracePeriod(first, 1_000)).toEqual([]);
    first = thresholdsFirstObservedAt([t!], first, 20_000);
    expect(first.get(t!)).toBe(1_000);
    expect(thresholdsMetGracePeriod(first, 30_999)).toEqual([]);
    expect(thresholdsMetGracePeriod(first, 31_000)).toEqual([t!]);
    // Not met for a cycle: forgotten, the grace period starts again.
    first = thresholdsFirstObservedAt([], first, 32_000);
    first = thresholdsFirstObservedAt([t!], first, 33_000);
    expect(thresholdsMetGracePeriod(first, 40_000)).toEqual([]);
  });

  test("conditions by signal; one stays reported for the transition period after it was last observed", () => {
    const ts = hard("memory.available<1Gi,allocatableMemory.available<1Gi,imagefs.inodesFree<5%,pid.available<100");
    expect([...nodeConditions(ts)]).toEqual(["MemoryPressure", "DiskPressure", "PIDPressure"]);
    let last = nodeConditionsLastObservedAt(new Set(["MemoryPressure"]), new Map(), 0);
    expect([...nodeConditionsObservedSince(last, 300_000, 0)]).toEqual(["MemoryPressure"]);
    last = nodeConditionsLastObservedAt(new Set(), last, 10_000);
    expect([...nodeConditionsObservedSince(last, 300_000, 299_999)]).toEqual(["MemoryPressure"]);
    expect([...nodeConditionsObservedSince(last, 300_000, 300_000)]).toEqual([]);
  });

  test("hardEvictionReservation: hard memory.available and nodefs.available only, percentages of capacity", () => {
    const ts: Threshold[] = [
      ...hard("memory.available<5%,nodefs.available<1Gi,imagefs.available<50%"),
      ...parseThresholds({ hard: new Map(), soft: parseLangleMap("memory.available<4Gi"), softGracePeriod: parseEqualsMap("memory.available=1m") }),
    ];
    expect(hardEvictionReservation(ts, { memoryBytes: 20 * GI, ephemeralStorageBytes: 100 * GI })).toEqual({
      memoryBytes: Math.trunc(20 * GI * Math.fround(0.05)),
      ephemeralStorageBytes: GI,
    });
    expect(hardEvictionReservation([], { memoryBytes: 20 * GI })).toEqual({ memoryBytes: 0, ephemeralStorageBytes: 0 });
  });
});
