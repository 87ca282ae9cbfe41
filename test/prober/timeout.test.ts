// withTimeout on a FakeClock whose timers can fire late, as on an agent whose event loop stalled:
// the time the agent was not looking is not the container's.
import { describe, expect, test } from "bun:test";
import { STALL_TOLERANCE_MS, withTimeout } from "../../src/prober/timeout";
import { FakeClock, type Clock, type Timer } from "../../src/util/clock";

const T0 = Date.UTC(2026, 0, 1);

/** A FakeClock whose next timer fires `stallNext` ms after it is due: the agent was busy then. */
class StallingClock implements Clock {
  stallNext = 0;
  constructor(readonly inner: FakeClock) {}
  now(): number {
    return this.inner.now();
  }
  setTimer(ms: number, fn: () => void): Timer {
    const late = this.stallNext;
    this.stallNext = 0;
    return this.inner.setTimer(ms + late, fn);
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.inner.sleep(ms, signal);
  }
}

/** A handler that answers "answered" after `ms` on the clock, and never when ms is undefined. */
function answerAfter(clock: FakeClock, ms: number | undefined): () => Promise<string> {
  return () => new Promise<string>((resolve) => (ms === undefined ? undefined : clock.setTimer(ms, () => resolve("answered"))));
}

describe("withTimeout", () => {
  test("a deadline whose timer fired on time is a timeout for an answer one millisecond late", async () => {
    const inner = new FakeClock(T0);
    const result = withTimeout(new StallingClock(inner), 1000, undefined, answerAfter(inner, 1001), () => "timed out");
    await inner.advance(2000);
    expect(await result).toBe("timed out");
  });

  test("a deadline whose timer fired late, the agent stalled: an answer waiting behind it is taken", async () => {
    const inner = new FakeClock(T0);
    const clock = new StallingClock(inner);
    clock.stallNext = 300;
    // The deadline's timer comes first at 1300, then the answer that was there all along.
    const result = withTimeout(clock, 1000, undefined, answerAfter(inner, 1300), () => "timed out");
    await inner.advance(1300);
    expect(await result).toBe("answered");
  });

  test("no answer at all: a timeout once the agent has looked for as long as it was stalled, on the clock", async () => {
    const inner = new FakeClock(T0);
    const clock = new StallingClock(inner);
    clock.stallNext = 300;
    let settled: string | undefined;
    void withTimeout(clock, 1000, undefined, answerAfter(inner, undefined), () => "timed out").then((r) => (settled = r));
    await inner.advance(1599);
    expect(settled).toBeUndefined();
    await inner.advance(1);
    expect(settled).toBe("timed out");
  });

  test("the extension is at most the timeout once more, however long the stall; lateness within the tolerance moves nothing", async () => {
    const inner = new FakeClock(T0);
    const clock = new StallingClock(inner);
    clock.stallNext = 5000;
    let settled: string | undefined;
    void withTimeout(clock, 1000, undefined, answerAfter(inner, undefined), () => "timed out").then((r) => (settled = r));
    await inner.advance(6999);
    expect(settled).toBeUndefined();
    await inner.advance(1);
    expect(settled).toBe("timed out");

    const inner2 = new FakeClock(T0);
    const clock2 = new StallingClock(inner2);
    clock2.stallNext = STALL_TOLERANCE_MS;
    const result = withTimeout(clock2, 1000, undefined, answerAfter(inner2, 1000 + STALL_TOLERANCE_MS), () => "timed out");
    await inner2.advance(2000);
    expect(await result).toBe("timed out");
  });
});
