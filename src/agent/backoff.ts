// Backoff: the kubelet's flowcontrol.Backoff for crash loops (10 s doubling to 300 s) and image
// pulls (same schedule). An entry not touched for 2 × max resets to the initial delay, which is the
// kubelet's "10 minutes without a problem" reset (client-go util/flowcontrol/backoff.go hasExpired).
import type { Clock } from "../util";

interface Entry {
  delayMs: number;
  lastUpdate: number;
}

export class Backoff {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    readonly initialMs = 10_000,
    readonly maxMs = 300_000,
  ) {}

  /** The current delay of key (0 when it has none). */
  get(key: string): number {
    const e = this.entries.get(key);
    return e && !this.expired(e) ? e.delayMs : 0;
  }

  /**
   * Records a failure at `at` (default now; the kubelet passes the exited container's finishedAt):
   * the first one waits initialMs, each next one twice as long, up to max.
   */
  next(key: string, at = this.clock.now()): number {
    const e = this.entries.get(key);
    const delayMs = !e || this.expired(e) ? this.initialMs : Math.min(e.delayMs * 2, this.maxMs);
    this.entries.set(key, { delayMs, lastUpdate: at });
    return delayMs;
  }

  /** True while key is backing off from its last recorded failure (image pulls: IsInBackOffSinceUpdate). */
  inBackOff(key: string): boolean {
    const e = this.entries.get(key);
    return !!e && !this.expired(e) && this.clock.now() - e.lastUpdate < e.delayMs;
  }

  /**
   * True while key is backing off from an event at `since` (the exited container's finishedAt,
   * as the kubelet's IsInBackOffSince): now is less than the current delay after it.
   */
  isInBackOffSince(key: string, since: number): boolean {
    const e = this.entries.get(key);
    if (!e || this.expired(e)) return false;
    return this.clock.now() - since < e.delayMs;
  }

  /** When key's backoff from `since` ends (ms since the epoch), or 0 when it is not backing off. */
  backOffEnds(key: string, since: number): number {
    const e = this.entries.get(key);
    return e && !this.expired(e) ? since + e.delayMs : 0;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Drops entries idle for longer than 2 × max (the kubelet's periodic GC of its backoffs). */
  gc(): void {
    for (const [k, e] of this.entries) if (this.expired(e)) this.entries.delete(k);
  }

  private expired(e: Entry): boolean {
    return this.clock.now() - e.lastUpdate > 2 * this.maxMs;
  }
}
