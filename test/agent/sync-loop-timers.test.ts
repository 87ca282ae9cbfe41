// The sync loop over a simulated day: its two tickers must hold two timers, not one per tick
// (issue 24, finding 6: every fired timer was kept, ~130,000 a day).
import { expect, test } from "bun:test";
import { SyncLoop, type SyncHandler } from "../../src/agent/sync-loop";
import type { PodLifecycleEvent } from "../../src/pleg/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";

function countingHandler() {
  const counts = { sync: 0, housekeeping: 0 };
  const none = () => {};
  const handler: SyncHandler = {
    handlePodAdditions: none,
    handlePodUpdates: none,
    handlePodDeletions: none,
    handlePodRemoves: none,
    handlePodReconcile: none,
    handleProbeResult: none,
    handleObjectChange: none,
    handlePodSyncs: () => void counts.sync++,
    handlePodCleanups: () => void counts.housekeeping++,
  };
  return { counts, handler };
}

async function* noPlegEvents(signal: AbortSignal): AsyncIterable<PodLifecycleEvent> {
  await new Promise<void>((r) => signal.addEventListener("abort", () => r(), { once: true }));
}

test("a simulated day of sync (1 s) and housekeeping (2 s) ticks: the loop holds at most 2 timers and the clock's pending timers do not grow", async () => {
  const clock = new FakeClock();
  const { counts, handler } = countingHandler();
  let due = 0;
  const loop = new SyncLoop({ handler, duePods: () => (due++ % 2 === 0 ? ["a"] : []), clock, log: createLogger("text", -1) });
  const ac = new AbortController();
  const done = loop.run(ac.signal, noPlegEvents(ac.signal));
  await clock.advance(0);
  expect(loop.timerCount).toBe(2);
  const pendingAtStart = clock.pending();
  let maxHeld = 0;
  let maxPending = 0;
  for (let hour = 0; hour < 24; hour++) {
    // Ten-minute steps: the count is looked at 144 times over the day, not only at its end.
    for (let step = 0; step < 6; step++) {
      await clock.advance(600_000);
      await loop.drained();
      maxHeld = Math.max(maxHeld, loop.timerCount);
      maxPending = Math.max(maxPending, clock.pending());
    }
  }
  // Every tick of the day was delivered: 86,400 sync ticks (every other one had a due pod) and 43,200 housekeeping.
  expect(counts.housekeeping).toBe(43_200);
  expect(counts.sync).toBe(43_200);
  expect(maxHeld).toBeLessThanOrEqual(2);
  expect(maxPending).toBeLessThanOrEqual(pendingAtStart);
  ac.abort();
  await clock.advance(0);
  await done;
  expect(loop.timerCount).toBe(0);
  expect(clock.pending()).toBe(0);
}, 120_000);
