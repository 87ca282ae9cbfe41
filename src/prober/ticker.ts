// The probe period as Go's time.Ticker keeps it for the kubelet's workers: ticks on a fixed grid from
// the first probe, whatever each probe takes; a probe that overruns a tick runs the next one at once,
// and ticks missed meanwhile are dropped (the ticker's channel holds one).
import type { Clock } from "../util";

export class ProbeTicker {
  private next: number;

  constructor(
    private readonly clock: Clock,
    private readonly periodMs: number,
    /** The grid's origin, the first probe: now unless that probe ran later than it was due. */
    from = clock.now(),
  ) {
    this.next = from + periodMs;
  }

  /** How long to wait from now for the next tick, and moves past it. */
  untilNextTick(): number {
    const now = this.clock.now();
    if (this.next > now) {
      const wait = this.next - now;
      this.next += this.periodMs;
      return wait;
    }
    // Overran: the one buffered tick fires now; the grid goes on from the first tick after now.
    const start = this.next - this.periodMs;
    this.next = start + this.periodMs * (Math.floor((now - start) / this.periodMs) + 1);
    return 0;
  }
}
