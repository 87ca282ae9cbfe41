// The pacing shared by the node's heartbeat loops: sleeps on the injected Clock that stop() cuts short,
// and client-go's doubling backoff. `settled()` tells a test (or a shutdown) when the loop is parked
// on the clock, so a FakeClock can be advanced without guessing how long an API call takes.
import type { Clock, Timer } from "../util";

export class ClockLoop {
  private timer?: Timer;
  private wake?: () => void;
  private parked = false;
  private waiters: Array<() => void> = [];
  stopped = false;

  constructor(private readonly clock: Clock) {}

  /** Waits ms on the clock; false when the loop was stopped meanwhile (the caller returns). */
  sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    this.parked = true;
    for (const w of this.waiters.splice(0)) w();
    return new Promise((resolve) => {
      const done = (running: boolean) => {
        this.parked = false;
        this.wake = undefined;
        resolve(running);
      };
      this.wake = () => done(false);
      this.timer = this.clock.setTimer(ms, () => done(!this.stopped));
    });
  }

  /** Resolves the next time the loop waits on the clock (now, if it already does) or stops. */
  settled(): Promise<void> {
    if (this.parked || this.stopped) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.wake?.();
    for (const w of this.waiters.splice(0)) w();
  }
}

/** Doubling backoff capped at max: 0 → first, then ×2 (wait.Backoff as client-go's controllers use it). */
export function nextBackoff(current: number, first: number, max: number): number {
  return current === 0 ? first : Math.min(current * 2, max);
}

/** A loop on a ClockLoop that starts once, stops cleanly (awaiting its last round) and tells when it is parked. */
export abstract class ClockTask {
  protected readonly loop: ClockLoop;
  private running?: Promise<void>;

  constructor(clock: Clock) {
    this.loop = new ClockLoop(clock);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.loop.stop();
    await this.running;
  }

  /** Resolves when the task waits for its next period or a backoff (for tests driving a FakeClock). */
  settled(): Promise<void> {
    return this.loop.settled();
  }

  /** The loop itself; it must return once `loop.sleep` answers false, and never throw. */
  protected abstract run(): Promise<void>;
}
