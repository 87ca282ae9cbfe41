// Eviction thresholds: parsed from --eviction-hard, --eviction-soft, --eviction-soft-grace-period and
// --eviction-minimum-reclaim (or the KubeletConfiguration maps evictionHard, …) as the kubelet's
// ParseThresholdConfig does, and the pure steps of its synchronize that work on them (k/k@1.24.1
// pkg/kubelet/eviction/helpers.go: thresholdsMet, mergeThresholds, thresholdsFirstObservedAt,
// thresholdsMetGracePeriod, nodeConditions, nodeConditionsLastObservedAt,
// nodeConditionsObservedSince; pkg/kubelet/cm/node_container_manager_linux.go hardEvictionReservation).
//
// A threshold is "signal < value", the value a quantity or a percentage of the signal's capacity. A
// hard threshold acts as soon as it is met (grace period 0); a soft one only once it has been met for
// its grace period without a break. A threshold with a minimum reclaim, once met, stays met until the
// signal is above value + minimum reclaim.
import { tryParseQuantity, QuantityError } from "../api";
import { errorMessage, parseDuration } from "../util";
import { isSignal, SIGNAL_CONDITION, type Observations, type PressureCondition, type Signal } from "./signals";

/** A quantity in the signal's unit (bytes, inodes, pids), or a fraction (0–1) of its capacity. */
export type ThresholdValue = { quantity: number } | { percentage: number };

export interface Threshold {
  signal: Signal;
  value: ThresholdValue;
  /** 0 for a hard threshold (isHardEvictionThreshold); a soft one's --eviction-soft-grace-period. */
  gracePeriodMs: number;
  minReclaim?: ThresholdValue;
}

/** The kubelet's default evictionHard on Linux (pkg/kubelet/eviction/defaults_linux.go). */
export const DEFAULT_EVICTION_HARD = "memory.available<100Mi,nodefs.available<10%,nodefs.inodesFree<5%,imagefs.available<15%";
/** evictionPressureTransitionPeriod's default. */
export const DEFAULT_PRESSURE_TRANSITION_PERIOD_MS = 5 * 60_000;

/** A mistake in one entry; the caller says which flag or field it is in. */
export class ThresholdError extends Error {}

/** isHardEvictionThreshold: a grace period of zero. */
export function isHard(t: Threshold): boolean {
  return t.gracePeriodMs === 0;
}

/** parsePercentage: float32(strconv.ParseFloat("<n>", 32)) / 100, in float32 as Go computes it. */
function percentage(signal: string, val: string): number {
  const text = val.slice(0, -1);
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n)) throw new ThresholdError(`${signal}: ${JSON.stringify(val)} is not a percentage`);
  return Math.fround(Math.fround(n) / 100);
}

function quantity(signal: string, val: string): number {
  const q = tryParseQuantity(val);
  if (q instanceof QuantityError) throw new ThresholdError(`${signal}: ${JSON.stringify(val)}: ${q.message}`);
  return q.value();
}

function signalOf(name: string): Signal {
  if (!isSignal(name)) throw new ThresholdError(`unsupported eviction signal ${name}`);
  return name;
}

/**
 * parseThresholdStatement: "0%" and "100%" are no threshold at all; other percentages must be within
 * 0–100%, quantities positive.
 */
function thresholdStatement(name: string, val: string): Threshold | undefined {
  const signal = signalOf(name);
  if (val.endsWith("%")) {
    if (val === "0%" || val === "100%") return undefined;
    const p = percentage(signal, val);
    if (p < 0) throw new ThresholdError(`eviction percentage threshold ${signal} must be >= 0%: ${val}`);
    if (p > 1) throw new ThresholdError(`eviction percentage threshold ${signal} must be <= 100%: ${val}`);
    return { signal, value: { percentage: p }, gracePeriodMs: 0 };
  }
  const q = quantity(signal, val);
  if (q <= 0) throw new ThresholdError(`eviction threshold ${signal} must be positive: ${val}`);
  return { signal, value: { quantity: q }, gracePeriodMs: 0 };
}

function minimumReclaim(name: string, val: string): ThresholdValue {
  const signal = signalOf(name);
  if (val.endsWith("%")) {
    const p = percentage(signal, val);
    if (p <= 0) throw new ThresholdError(`eviction percentage minimum reclaim ${signal} must be positive: ${val}`);
    return { percentage: p };
  }
  const q = quantity(signal, val);
  if (q < 0) throw new ThresholdError(`negative eviction minimum reclaim specified for ${signal}`);
  return { quantity: q };
}

function gracePeriod(name: string, val: string): number {
  const signal = signalOf(name);
  // parseDuration reads no sign; a negative one parses in Go and is refused after.
  if (val.startsWith("-")) throw new ThresholdError(`invalid eviction grace period specified: ${val}, must be a positive value`);
  let ms: number;
  try {
    ms = parseDuration(val);
  } catch (e) {
    throw new ThresholdError(`${signal}: ${errorMessage(e)}`);
  }
  return ms;
}

/** Each entry of a map setting, with where its mistakes are reported ("--eviction-hard", a file field). */
export interface ThresholdMaps {
  hard: ReadonlyMap<string, string>;
  soft?: ReadonlyMap<string, string>;
  softGracePeriod?: ReadonlyMap<string, string>;
  minimumReclaim?: ReadonlyMap<string, string>;
}

/** Which setting an entry's mistake is reported against. */
export type ThresholdSetting = keyof ThresholdMaps;

/** A ThresholdError from one setting's entry. */
export class ThresholdEntryError extends ThresholdError {
  constructor(
    readonly setting: ThresholdSetting,
    readonly entry: string,
    message: string,
  ) {
    super(message);
  }
}

function each<T>(setting: ThresholdSetting, map: ReadonlyMap<string, string> | undefined, parse: (k: string, v: string) => T): Array<[string, T]> {
  const out: Array<[string, T]> = [];
  for (const [k, v] of map ?? []) {
    try {
      out.push([k, parse(k, v)]);
    } catch (e) {
      if (e instanceof ThresholdError) throw new ThresholdEntryError(setting, `${k}${setting === "hard" || setting === "soft" ? "<" : "="}${v}`, e.message);
      throw e;
    }
  }
  return out;
}

/**
 * ParseThresholdConfig: the hard thresholds, then the soft ones each with its grace period (a soft
 * threshold without one is an error), each given its minimum reclaim. Throws ThresholdEntryError.
 * (The kubelet also derives allocatableMemory.available from memory.available when
 * enforceNodeAllocatable has "pods"; nodeagent has no allocatable enforcement, so that signal is
 * watched only when a threshold names it.)
 */
export function parseThresholds(maps: ThresholdMaps): Threshold[] {
  const hard = each("hard", maps.hard, thresholdStatement).flatMap(([, t]) => (t ? [t] : []));
  const soft = each("soft", maps.soft, thresholdStatement).flatMap(([, t]) => (t ? [t] : []));
  const grace = new Map(each("softGracePeriod", maps.softGracePeriod, gracePeriod));
  const reclaim = new Map(each("minimumReclaim", maps.minimumReclaim, minimumReclaim));
  for (const t of soft) {
    const g = grace.get(t.signal);
    if (g === undefined) throw new ThresholdEntryError("soft", t.signal, `grace period must be specified for the soft eviction threshold ${t.signal}`);
    t.gracePeriodMs = g;
  }
  const all = [...hard, ...soft];
  for (const t of all) {
    const r = reclaim.get(t.signal);
    if (r) t.minReclaim = r;
  }
  return all;
}

/**
 * A "<"-separated map flag (--eviction-hard memory.available<100Mi,nodefs.available<10%), as the
 * kubelet's LangleSeparatedMapStringString: "" is the empty map, a repeated key takes the last value.
 */
export function parseLangleMap(text: string): Map<string, string> {
  return parsePairs(text, "<");
}

/** A "="-separated map flag (--eviction-soft-grace-period memory.available=1m30s). */
export function parseEqualsMap(text: string): Map<string, string> {
  return parsePairs(text, "=");
}

function parsePairs(text: string, sep: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of text.split(",")) {
    if (item.length === 0) continue;
    // strings.SplitN(item, sep, 2): the first separator splits, the rest belongs to the value.
    const at = item.indexOf(sep);
    if (at < 0) throw new ThresholdError(`malformed pair ${JSON.stringify(item)}, expect string${sep}string`);
    out.set(item.slice(0, at).trim(), item.slice(at + sep.length).trim());
  }
  return out;
}

/** GetThresholdQuantity: the value, or the percentage of capacity (truncated, as Go's int64()). */
export function thresholdQuantity(v: ThresholdValue, capacity: number): number {
  return "quantity" in v ? v.quantity : Math.trunc(capacity * v.percentage);
}

/**
 * thresholdsMet: the thresholds whose signal is observed below the threshold (plus its minimum
 * reclaim with enforceMinReclaim). A signal with no observation meets nothing.
 */
export function thresholdsMet(thresholds: readonly Threshold[], observations: Observations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations[t.signal];
    if (!o) return false;
    let q = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim && t.minReclaim) q += thresholdQuantity(t.minReclaim, o.capacity);
    return q > o.available;
  });
}

export function mergeThresholds(a: readonly Threshold[], b: readonly Threshold[]): Threshold[] {
  const out = [...a];
  for (const t of b) if (!out.includes(t)) out.push(t);
  return out;
}

/** thresholdsFirstObservedAt: when each met threshold was first seen met, kept from the last cycle. */
export function thresholdsFirstObservedAt(met: readonly Threshold[], last: ReadonlyMap<Threshold, number>, now: number): Map<Threshold, number> {
  return new Map(met.map((t) => [t, last.get(t) ?? now]));
}

/** thresholdsMetGracePeriod: those met for at least their grace period. */
export function thresholdsMetGracePeriod(firstObservedAt: ReadonlyMap<Threshold, number>, now: number): Threshold[] {
  return [...firstObservedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

/** nodeConditions: the conditions the met thresholds' signals make true. */
export function nodeConditions(met: readonly Threshold[]): Set<PressureCondition> {
  return new Set(met.map((t) => SIGNAL_CONDITION[t.signal]));
}

/** nodeConditionsLastObservedAt: the last time each condition was seen, the current ones now. */
export function nodeConditionsLastObservedAt(
  current: ReadonlySet<PressureCondition>,
  last: ReadonlyMap<PressureCondition, number>,
  now: number,
): Map<PressureCondition, number> {
  const out = new Map(last);
  for (const c of current) out.set(c, now);
  return out;
}

/**
 * nodeConditionsObservedSince: a condition is reported while it was last seen less than the
 * transition period ago, so that a signal hovering around its threshold does not flap the condition.
 */
export function nodeConditionsObservedSince(lastObservedAt: ReadonlyMap<PressureCondition, number>, periodMs: number, now: number): Set<PressureCondition> {
  return new Set([...lastObservedAt].filter(([, at]) => now - at < periodMs).map(([c]) => c));
}

/**
 * hardEvictionReservation: what the hard memory.available and nodefs.available thresholds take off
 * the node's allocatable memory and ephemeral storage (percentages of capacity).
 */
export function hardEvictionReservation(
  thresholds: readonly Threshold[],
  capacity: { memoryBytes: number; ephemeralStorageBytes?: number },
): { memoryBytes: number; ephemeralStorageBytes: number } {
  let memoryBytes = 0;
  let ephemeralStorageBytes = 0;
  for (const t of thresholds) {
    if (!isHard(t)) continue;
    if (t.signal === "memory.available") memoryBytes = thresholdQuantity(t.value, capacity.memoryBytes);
    if (t.signal === "nodefs.available") ephemeralStorageBytes = thresholdQuantity(t.value, capacity.ephemeralStorageBytes ?? 0);
  }
  return { memoryBytes, ephemeralStorageBytes };
}
