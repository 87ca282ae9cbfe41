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
import { readFileSync } from "node:fs";
import { PRESSURE_CONDITIONS, type PressureCondition } from "../eviction";
import { type Logger, writeFileAtomic } from "../util";
import type { PodFailure } from "../status";

/** What the node evicted a pod with: its status, and the pressure condition it relieved, if any. */
export interface EvictionRecord extends PodFailure {
  condition?: PressureCondition;
}

function isCondition(v: unknown): v is PressureCondition {
  return PRESSURE_CONDITIONS.includes(v as PressureCondition);
}

export class EvictedPods {
  private pods = new Map<string, EvictionRecord>();

  /** With no file the record lives in memory only (tests). */
  constructor(
    private readonly file: string | undefined,
    private readonly log?: Logger,
  ) {
    if (!file) return;
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as Record<string, EvictionRecord>;
      if (data && typeof data === "object") {
        for (const [uid, f] of Object.entries(data)) {
          if (typeof f?.reason !== "string" || typeof f.message !== "string") continue;
          this.pods.set(uid, { reason: f.reason, message: f.message, ...(isCondition(f.condition) ? { condition: f.condition } : {}) });
        }
      }
    } catch (e) {
      // A missing file is a first start; an unreadable one is said, and costs at most a restart of an evicted pod.
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") log?.warn("record of evicted pods unreadable, starting without it", { path: file, err: e });
    }
  }

  /** The status the pod was evicted with, if this node evicted it. */
  get(uid: string): EvictionRecord | undefined {
    return this.pods.get(uid);
  }

  add(uid: string, record: EvictionRecord): void {
    this.pods.set(uid, { reason: record.reason, message: record.message, ...(record.condition ? { condition: record.condition } : {}) });
    this.save();
  }

  /** Forgets the pod (removed from its source). */
  delete(uid: string): void {
    if (this.pods.delete(uid)) this.save();
  }

  /** Forgets every pod not in `known` (the pods the sources have, once all of them have been seen). */
  prune(known: ReadonlySet<string>): void {
    let changed = false;
    for (const uid of [...this.pods.keys()]) if (!known.has(uid)) changed = this.pods.delete(uid) || changed;
    if (changed) this.save();
  }

  private save(): void {
    if (!this.file) return;
    try {
      writeFileAtomic(this.file, JSON.stringify(Object.fromEntries(this.pods)));
    } catch (e) {
      this.log?.warn("cannot keep the record of evicted pods", { path: this.file, err: e });
    }
  }
}

/** The Normal event on a pod started again once the pressure that evicted it is gone (the agent's own). */
export const EVICTION_RECOVERED_REASON = "EvictionRecovered";

const PRESSURE_WORD: Readonly<Record<PressureCondition, string>> = { MemoryPressure: "memory", DiskPressure: "disk", PIDPressure: "PID" };

/** Its message: "The node is no longer under memory pressure; the pod is started again". */
export function evictionRecoveredMessage(condition: PressureCondition): string {
  return `The node is no longer under ${PRESSURE_WORD[condition]} pressure; the pod is started again`;
}
