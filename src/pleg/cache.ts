// PodStatusCache: the last status the relist read for each pod, with the time of that read.
// Relisting is its only writer (DESIGN.md): readers get PodStatusReader, which cannot write.
import type { CachedPodStatus, PodStatus, PodStatusReader } from "./types";

interface Waiter {
  uid: string;
  minTime: number;
  resolve: (v: CachedPodStatus) => void;
}

export class PodStatusCache implements PodStatusReader {
  private entries = new Map<string, CachedPodStatus>();
  /**
   * Every pod is known to be current up to this time (the start of the last complete relist).
   * Undefined until the first relist: as the kubelet's cache, nothing is current before the runtime
   * has been listed once, so a pod's first sync sees what already runs (a restarted agent adopts).
   */
  private globalTimestamp: number | undefined;
  private waiters = new Set<Waiter>();

  get(uid: string): CachedPodStatus | undefined {
    return this.entries.get(uid);
  }
  uids(): string[] {
    return [...this.entries.keys()];
  }

  /** Only the relist calls this. An older read never replaces a newer one. */
  set(uid: string, status: PodStatus | undefined, error: Error | undefined, timestamp: number): boolean {
    const old = this.entries.get(uid);
    if (old && old.timestamp > timestamp) return false;
    this.entries.set(uid, { status, error, timestamp });
    this.notify();
    return true;
  }
  /**
   * Only the relist calls this: it re-read the pod at `timestamp` and found nothing changed, so the
   * entry is current as of then (what a full relist's updateTime says for every pod).
   */
  touch(uid: string, timestamp: number): void {
    const old = this.entries.get(uid);
    if (old && old.timestamp >= timestamp) return;
    this.entries.set(uid, { status: old?.status, error: old?.error, timestamp });
    this.notify();
  }
  /**
   * Only the relist calls this: the pod has nothing left in the runtime as of `timestamp`. The entry
   * stays, without a status, as the answer to anyone waiting for a read of the pod after its removal
   * (a pod started again under the same UID waits for exactly that); with the evented PLEG the next
   * full relist, which would also answer, may be minutes away. The next full relist drops it.
   */
  remove(uid: string, timestamp: number): void {
    const old = this.entries.get(uid);
    if (old && old.timestamp > timestamp) return;
    this.entries.set(uid, { status: undefined, error: undefined, timestamp });
    this.notify();
  }
  /** After a full relist: every pod not otherwise written is known current as of ts. */
  updateTime(ts: number): void {
    this.globalTimestamp = Math.max(this.globalTimestamp ?? ts, ts);
    // Entries that only say "nothing as of t" say no more than the global time now.
    for (const [uid, e] of this.entries) if (e.status === undefined && e.error === undefined && e.timestamp <= this.globalTimestamp) this.entries.delete(uid);
    this.notify();
  }

  private lookup(uid: string, minTime: number): CachedPodStatus | undefined {
    const e = this.entries.get(uid);
    if (e && e.timestamp >= minTime) return e;
    if (this.globalTimestamp !== undefined && this.globalTimestamp >= minTime) {
      return e ? { ...e, timestamp: this.globalTimestamp } : { status: undefined, error: undefined, timestamp: this.globalTimestamp };
    }
    return undefined;
  }

  getNewerThan(uid: string, minTime: number, signal?: AbortSignal): Promise<CachedPodStatus> {
    const hit = this.lookup(uid, minTime);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const w: Waiter = { uid, minTime, resolve };
      this.waiters.add(w);
      signal?.addEventListener(
        "abort",
        () => {
          this.waiters.delete(w);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  private notify(): void {
    for (const w of this.waiters) {
      const hit = this.lookup(w.uid, w.minTime);
      if (hit) {
        this.waiters.delete(w);
        w.resolve(hit);
      }
    }
  }
}
