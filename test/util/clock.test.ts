import { expect, test } from "bun:test";
import { FakeClock } from "../../src/util/clock";

test("FakeClock fires timers in time order, only when advanced past them", async () => {
  const c = new FakeClock(0);
  const fired: string[] = [];
  c.setTimer(300, () => fired.push("b"));
  c.setTimer(100, () => fired.push("a"));
  const cancelled = c.setTimer(200, () => fired.push("x"));
  cancelled.cancel();
  await c.advance(99);
  expect(fired).toEqual([]);
  await c.advance(250);
  expect(fired).toEqual(["a", "b"]);
  expect(c.now()).toBe(349);
});

test("FakeClock runs async loops that sleep on it", async () => {
  const c = new FakeClock(0);
  const ticks: number[] = [];
  const ac = new AbortController();
  const loop = (async () => {
    try {
      for (;;) {
        await c.sleep(1000, ac.signal);
        ticks.push(c.now());
      }
    } catch {
      /* aborted */
    }
  })();
  await c.advance(3500);
  ac.abort();
  await loop;
  expect(ticks).toEqual([1000, 2000, 3000]);
});

test("RealClock.liveTimers counts timers set and neither fired nor cancelled (the nodeagent_timers gauge)", async () => {
  const { RealClock } = await import("../../src/util/clock");
  const c = new RealClock();
  const before = RealClock.liveTimers();
  const a = c.setTimer(60_000, () => {});
  const b = c.setTimer(60_000, () => {});
  let fired = false;
  c.setTimer(0, () => (fired = true));
  expect(RealClock.liveTimers()).toBe(before + 3);
  a.cancel();
  a.cancel();
  expect(RealClock.liveTimers()).toBe(before + 2);
  await new Promise((r) => setTimeout(r, 5));
  expect(fired).toBe(true);
  expect(RealClock.liveTimers()).toBe(before + 1);
  b.cancel();
  expect(RealClock.liveTimers()).toBe(before);
});
