// EvictedPods: the pods this node has evicted (by UID, with the status they were given), kept in a file
// under the root directory so that a restarted agent does not start again a pod it evicted. An API
// pod needs no such record (the API server has its Failed status, and the kubelet reads it back), but
// the kubelet never evicts static pods; here file, URL and pushed pods are evicted too
// (src/eviction/local-storage.ts), and their sources know nothing of it: without the record, an
// evicted pod whose source still lists it would run again after every restart. An entry is dropped
// when its pod is removed from its source, or, after a restart, once every source has been seen
// without it.
//
// An eviction for node pressure keeps the condition it relieved (MemoryPressure, DiskPressure,
// PIDPressure): once that condition is gone, a file, URL or pushed pod starts again (the agent's
// recoverEvictedPods; a departure from the kubelet, whose static pods are critical and never evicted).
// The record is what lets a restarted agent do the same. Other evictions (sizeLimit, preemption,
// deadline) carry none and stay Failed.
import { PRESSURE_CONDITIONS, type PressureCondition } from "../eviction";
import { type Logger, PodRecords } from "../util";
import type { PodFailure } from "../status";

/** What the node evicted a pod with: its status, and the pressure condition it relieved, if any. */
export interface EvictionRecord extends PodFailure {
  condition?: PressureCondition;
}

function isCondition(v: unknown): v is PressureCondition {
  return PRESSURE_CONDITIONS.includes(v as PressureCondition);
}

/** One entry as read from the file; one without a reason and message is dropped (costs at most a restart of an evicted pod). */
function decodeRecord(raw: unknown): EvictionRecord | undefined {
  const f = raw as Partial<EvictionRecord> | null;
  if (typeof f?.reason !== "string" || typeof f.message !== "string") return undefined;
  return { reason: f.reason, message: f.message, ...(isCondition(f.condition) ? { condition: f.condition } : {}) };
}

export class EvictedPods {
  private readonly pods: PodRecords<EvictionRecord>;

  /** With no file the record lives in memory only (tests). */
  constructor(file: string | undefined, log?: Logger) {
    this.pods = new PodRecords(file, { what: "record of evicted pods", decode: decodeRecord, ...(log ? { log } : {}) });
  }

  /** The status the pod was evicted with, if this node evicted it. */
  get(uid: string): EvictionRecord | undefined {
    return this.pods.get(uid);
  }

  add(uid: string, record: EvictionRecord): void {
    this.pods.set(uid, { reason: record.reason, message: record.message, ...(record.condition ? { condition: record.condition } : {}) });
  }

  /** Forgets the pod (removed from its source). */
  delete(uid: string): void {
    this.pods.delete(uid);
  }

  /** Forgets every pod not in `known` (the pods the sources have, once all of them have been seen). */
  prune(known: ReadonlySet<string>): void {
    this.pods.prune(known);
  }
}

/** The Normal event on a pod started again once the pressure that evicted it is gone (the agent's own). */
export const EVICTION_RECOVERED_REASON = "EvictionRecovered";

const PRESSURE_WORD: Readonly<Record<PressureCondition, string>> = { MemoryPressure: "memory", DiskPressure: "disk", PIDPressure: "PID" };

/** Its message: "The node is no longer under memory pressure; the pod is started again". */
export function evictionRecoveredMessage(condition: PressureCondition): string {
  return `The node is no longer under ${PRESSURE_WORD[condition]} pressure; the pod is started again`;
}
