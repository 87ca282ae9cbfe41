// backoffQ (pkg/scheduler/backend/queue/backoff_queue.go): pods that failed an attempt wait here until
// their backoff — initial × 2^(count−1), capped — ends. Two heaps ordered by backoff expiry: pods
// rejected by plugins, and pods that hit an error, which an idle scheduler never pops early.
import type { Clock } from "../../util";
import type { QueuedPodInfo } from "../framework/interface";
import { KeyedHeap } from "./heap";

/** backoffQOrderingWindowDuration (KEP-5142): also the flush period of backoffQ. */
export const BACKOFF_WINDOW_MS = 1000;

export function keyOf(p: QueuedPodInfo): string {
  return p.podInfo.uid;
}

export interface BackoffQueueOptions {
  clock: Clock;
  /** The QueueSort plugin's Less: breaks ties between equal expiries when PopFromBackoffQ is on. */
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  initialBackoffMs: number;
  maxBackoffMs: number;
  /** SchedulerPopFromBackoffQ: expiries are aligned to the ordering window and ties go by priority. */
  popFromBackoffQ: boolean;
}

export class BackoffQueue {
  private readonly clock: Clock;
  private readonly less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly popFromBackoffQ: boolean;
  /** Pods some plugin rejected. */
  private readonly rejected: KeyedHeap<QueuedPodInfo>;
  /** Pods whose attempt failed with an error (no rejecting plugin). */
  private readonly errored: KeyedHeap<QueuedPodInfo>;

  constructor(o: BackoffQueueOptions) {
    this.clock = o.clock;
    this.less = o.less;
    this.initialBackoff = o.initialBackoffMs;
    this.maxBackoff = o.maxBackoffMs;
    this.popFromBackoffQ = o.popFromBackoffQ;
    this.rejected = new KeyedHeap(
      keyOf,
      this.popFromBackoffQ ? (a, b) => this.lessBackoffWithPriority(a, b) : (a, b) => this.backoffTime(a) < this.backoffTime(b),
    );
    this.errored = new KeyedHeap(keyOf, (a, b) => this.backoffTime(a) < this.backoffTime(b));
  }

  /** With PopFromBackoffQ, times are rounded down to the ordering window. */
  align(t: number): number {
    return this.popFromBackoffQ ? Math.floor(t / BACKOFF_WINDOW_MS) * BACKOFF_WINDOW_MS : t;
  }

  /** initial × 2^(count−1), capped at max; count is the unschedulable count, or the error count after an error. */
  backoffDuration(count: number): number {
    if (count === 0) return 0;
    const shift = count - 1;
    if (shift >= 31 || this.initialBackoff * 2 ** shift > this.maxBackoff) return this.maxBackoff;
    return this.initialBackoff * 2 ** shift;
  }

  /** getBackoffTime: when the pod's backoff ends (0: no backoff), cached until its next attempt. */
  backoffTime(p: QueuedPodInfo): number {
    if (this.maxBackoff === 0) return 0;
    const count = p.consecutiveErrorsCount > 0 ? p.consecutiveErrorsCount : p.unschedulableCount;
    if (count === 0) return 0;
    if (p.backoffExpiration === 0) p.backoffExpiration = this.align(p.timestamp + this.backoffDuration(count));
    return p.backoffExpiration;
  }

  /** isEntityBackingoff: still inside the backoff (the current ordering window counts as inside). */
  isBackingOff(p: QueuedPodInfo): boolean {
    const t = this.backoffTime(p);
    return t > 0 && t >= this.align(this.clock.now());
  }

  private lessBackoffWithPriority(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const ta = this.backoffTime(a);
    const tb = this.backoffTime(b);
    if (ta !== tb) return ta < tb;
    return this.less(a, b);
  }

  has(key: string): boolean {
    return this.rejected.has(key) || this.errored.has(key);
  }

  get(key: string): QueuedPodInfo | undefined {
    return this.rejected.get(key) ?? this.errored.get(key);
  }

  delete(key: string): QueuedPodInfo | undefined {
    return this.rejected.delete(key) ?? this.errored.delete(key);
  }

  /** Pods without rejecting plugins failed with an error: they go to the error heap, which idle pops skip. */
  add(p: QueuedPodInfo): void {
    const key = keyOf(p);
    if (p.unschedulablePlugins.size === 0 && p.pendingPlugins.size === 0) {
      this.rejected.delete(key);
      this.errored.addOrUpdate(p);
    } else {
      this.errored.delete(key);
      this.rejected.addOrUpdate(p);
    }
  }

  /** Applies `change` to the pod's entry, if it is here, and re-sorts it in its heap. */
  update(key: string, change: (p: QueuedPodInfo) => void): QueuedPodInfo | undefined {
    for (const heap of [this.rejected, this.errored]) {
      const p = heap.get(key);
      if (p) {
        change(p);
        heap.addOrUpdate(p);
        return p;
      }
    }
    return undefined;
  }

  /** The head of the rejected pods, for an idle scheduler (PopFromBackoffQ); errored pods wait out their backoff. */
  popForIdle(): QueuedPodInfo | undefined {
    return this.rejected.pop();
  }

  /** Takes out every pod whose backoff completed, rejected ones first, each heap in expiry order. */
  popCompleted(): QueuedPodInfo[] {
    const out: QueuedPodInfo[] = [];
    for (const heap of [this.rejected, this.errored]) {
      for (;;) {
        const p = heap.peek();
        if (!p || this.isBackingOff(p)) break;
        heap.pop();
        out.push(p);
      }
    }
    return out;
  }

  /** The earliest backoff expiry, for a caller that advances a simulated clock. */
  nextExpiry(): number | undefined {
    const times = [this.rejected.peek(), this.errored.peek()].filter((p): p is QueuedPodInfo => !!p).map((p) => this.backoffTime(p));
    return times.length ? Math.min(...times) : undefined;
  }
}
