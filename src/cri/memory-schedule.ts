// MemorySchedule: many due times behind one clock timer, for the in-memory runtime (memory-runtime.ts).
// A thousand hollow nodes with ten pods each would otherwise hold tens of thousands of clock timers
// (a start latency per call, an exit time per Job container); here every due time is an entry of a
// binary heap and only the earliest is armed on the clock. Several runtimes may share one schedule.
// Entries are never cancelled: the callback checks whether what it was for still holds (a container
// stopped before its exit time is simply no longer running when the time comes).
import type { Clock, Timer } from "../util";

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
}

export class MemorySchedule {
  private readonly heap: Entry[] = [];
  private seq = 0;
  private timer: Timer | undefined;
  /** When the armed timer fires (Infinity when none is armed). */
  private armedAt = Number.POSITIVE_INFINITY;

  constructor(readonly clock: Clock) {}

  /** Calls fn once, ms from now on the clock (never synchronously). */
  after(ms: number, fn: () => void): void {
    this.push({ at: this.clock.now() + Math.max(0, ms), seq: this.seq++, fn });
    this.arm();
  }

  /** Resolves ms from now on the clock. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => this.after(ms, resolve));
  }

  /** Entries waiting to fire. */
  get size(): number {
    return this.heap.length;
  }

  private arm(): void {
    const next = this.heap[0];
    if (!next || next.at >= this.armedAt) return;
    this.timer?.cancel();
    this.armedAt = next.at;
    this.timer = this.clock.setTimer(next.at - this.clock.now(), () => this.fire());
  }

  private fire(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    while (this.heap.length > 0 && this.heap[0]!.at <= now) this.pop().fn();
    this.arm();
  }

  private less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(e: Entry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
