// Time as a dependency: RealClock for the node, FakeClock for tests, so relist periods, backoffs and
// probe periods are tested by advancing time instead of sleeping.

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls fn once after ms (never synchronously). */
  setTimer(ms: number, fn: () => void): Timer;
  /** Resolves after ms; rejects with the signal's reason if it is aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Timers of every RealClock set and neither fired nor cancelled: what `liveTimers` reports. */
let liveRealTimers = 0;

export class RealClock implements Clock {
  /**
   * Timers set through any RealClock that are still waiting: the agent's /metrics gauge
   * nodeagent_timers, so a loop that keeps scheduling without cancelling shows as a rising line.
   */
  static liveTimers(): number {
    return liveRealTimers;
  }
  now(): number {
    return Date.now();
  }
  setTimer(ms: number, fn: () => void): Timer {
    let live = true;
    liveRealTimers++;
    const settle = () => {
      if (!live) return false;
      live = false;
      liveRealTimers--;
      return true;
    };
    const fire = () => {
      if (settle()) fn();
    };
    // A timer of 0 is the next turn of the event loop: setTimeout(0) waits a millisecond in Bun
    // (1.1 ms measured here), and the file source's "scan after this turn's watch events" is on
    // every new pod's path.
    if (ms <= 0) {
      const i = setImmediate(fire);
      return { cancel: () => void (settle() && clearImmediate(i)) };
    }
    const t = setTimeout(fire, ms);
    return { cancel: () => void (settle() && clearTimeout(t)) };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
}

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told. `advance` fires due timers in time order and lets promise
 * callbacks run between them, so async loops driven by the clock make progress as they would live.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimer(ms: number, fn: () => void): Timer {
    const timer: FakeTimer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
  /** Number of timers waiting to fire. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
  /** Moves time forward by ms, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await flushMicrotasks();
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = Math.max(this.t, next.at);
      next.fn();
      await flushMicrotasks();
    }
    this.t = end;
    await flushMicrotasks();
  }
}

/** Lets pending promise callbacks (and the ones they queue) run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
  await new Promise<void>((r) => setImmediate(r));
}

/**
 * Runs fn, then again every periodMs after it finished, until the signal aborts (the kubelet's
 * wait.Until: the first run at once). fn handles its own errors; the loop only stops on the signal.
 */
export async function runUntil(clock: Clock, periodMs: number, signal: AbortSignal, fn: () => Promise<void>): Promise<void> {
  while (!signal.aborted) {
    await fn();
    try {
      await clock.sleep(periodMs, signal);
    } catch {
      return;
    }
  }
}
