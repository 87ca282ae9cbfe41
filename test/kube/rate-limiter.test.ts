// The client's token bucket (client-go's QPS and Burst) on a fake clock: a full bucket lets `burst`
// requests go at once, then one every 1/qps; waiters go in the order they asked; a quiet spell refills
// the bucket up to `burst` and no further; an aborted waiter rejects and does not let the rate be exceeded.
import { describe, expect, test } from "bun:test";
import { TokenBucket } from "../../src/kube";
import { FakeClock } from "../../src/util";

/** Starts waits and records, for each, the fake time it resolved at (ms since the bucket was made). */
function starter(clock: FakeClock, bucket: TokenBucket) {
  const t0 = clock.now();
  const done: Array<{ id: number; at: number }> = [];
  const start = (id: number, signal?: AbortSignal) =>
    bucket.wait(signal).then(
      () => void done.push({ id, at: clock.now() - t0 }),
      (e: unknown) => void done.push({ id, at: -1, ...{ error: String(e) } }),
    );
  return { done, start };
}

describe("TokenBucket", () => {
  test("a full bucket lets burst requests go at once; the next ones go one every 1/qps, in the order they asked", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 2, burst: 3 }, clock);
    const { done, start } = starter(clock, bucket);
    for (let id = 0; id < 7; id++) void start(id);
    await clock.advance(0);
    expect(done).toEqual([
      { id: 0, at: 0 },
      { id: 1, at: 0 },
      { id: 2, at: 0 },
    ]);
    await clock.advance(499);
    expect(done).toHaveLength(3);
    await clock.advance(1);
    expect(done.at(-1)).toEqual({ id: 3, at: 500 });
    await clock.advance(1500);
    expect(done.slice(3)).toEqual([
      { id: 3, at: 500 },
      { id: 4, at: 1000 },
      { id: 5, at: 1500 },
      { id: 6, at: 2000 },
    ]);
  });

  test("the wait is what the caller gets back: 0 with a token in the bucket, else the milliseconds waited", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 4, burst: 1 }, clock);
    expect(await bucket.wait()).toBe(0);
    const waited = bucket.wait();
    await clock.advance(250);
    expect(await waited).toBe(250);
  });

  test("a quiet spell refills the bucket up to burst, never more", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 5 }, clock);
    for (let i = 0; i < 5; i++) await bucket.wait();
    expect(bucket.available()).toBe(0);
    await clock.advance(200);
    expect(bucket.available()).toBeCloseTo(2);
    await clock.advance(60_000);
    expect(bucket.available()).toBe(5);
    const { done, start } = starter(clock, bucket);
    for (let id = 0; id < 6; id++) void start(id);
    await clock.advance(0);
    expect(done.map((d) => d.id)).toEqual([0, 1, 2, 3, 4]);
    await clock.advance(100);
    expect(done.map((d) => d.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  test("over any stretch of time no more than burst + qps × seconds go", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 3, burst: 2 }, clock);
    const { done, start } = starter(clock, bucket);
    for (let id = 0; id < 40; id++) void start(id);
    for (let i = 0; i < 150; i++) await clock.advance(100);
    expect(done).toHaveLength(40);
    const times = done.map((d) => d.at);
    for (let i = 0; i < times.length; i++)
      for (let j = i; j < times.length; j++) expect(j - i + 1).toBeLessThanOrEqual(2 + (3 * (times[j]! - times[i]!)) / 1000 + 1e-9);
  });

  test("an aborted waiter rejects with the signal's reason; the last one's token goes back, an earlier one's does not", async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1 }, clock);
    await bucket.wait();
    const last = new AbortController();
    const waiting = bucket.wait(last.signal);
    last.abort(new Error("stopped"));
    await expect(waiting).rejects.toThrow("stopped");
    // Its token is back: the next waiter is due after 1 s, not 2.
    const { done, start } = starter(clock, bucket);
    const early = new AbortController();
    void start(0, early.signal);
    void start(1);
    await clock.advance(0);
    early.abort(new Error("gone"));
    await clock.advance(1000);
    expect(done[0]).toMatchObject({ id: 0, at: -1 });
    expect(done).toHaveLength(1);
    // Waiter 1 keeps its time (2 s): the aborted token before it is not handed out again.
    await clock.advance(1000);
    expect(done[1]).toEqual({ id: 1, at: 2000 });
    // An already aborted signal takes no token.
    const aborted = AbortSignal.abort(new Error("before"));
    await expect(bucket.wait(aborted)).rejects.toThrow("before");
    await clock.advance(1000);
    expect(await bucket.wait()).toBe(0);
  });

  test("a limit that is no limit is refused: qps must be positive, burst at least 1", () => {
    const clock = new FakeClock();
    expect(() => new TokenBucket({ qps: 0, burst: 1 }, clock)).toThrow(/qps 0/);
    expect(() => new TokenBucket({ qps: 1, burst: 0 }, clock)).toThrow(/burst 0/);
    expect(() => new TokenBucket({ qps: Number.NaN, burst: 1 }, clock)).toThrow(/qps/);
  });
});
