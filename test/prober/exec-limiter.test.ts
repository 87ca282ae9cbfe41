// ExecLimiter on a FakeClock: the cap on ExecSyncs in the runtime, the first-come queue, one ExecSync
// per probe, and the evidence that the runtime was slow for every container.
import { describe, expect, test } from "bun:test";
import { ExecLimiter, ProbeSkippedError, type ExecRun } from "../../src/prober/exec-limiter";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";

const T0 = Date.UTC(2026, 0, 1);

/** Records the order in which acquisitions were granted or skipped. */
function track(p: Promise<ExecRun>, name: string, log: string[]): Promise<ExecRun | undefined> {
  return p.then(
    (run) => {
      log.push(`${name}:run`);
      return run;
    },
    (err: unknown) => {
      log.push(`${name}:${err instanceof ProbeSkippedError ? "skipped" : "aborted"}`);
      return undefined;
    },
  );
}

describe("ExecLimiter", () => {
  test("at most `slots` in the runtime; the others wait and get a slot in the order they came, when a run ends", async () => {
    const clock = new FakeClock(T0);
    const limiter = new ExecLimiter(2, clock);
    const log: string[] = [];
    const runs = ["a", "b", "c", "d", "e"].map((name) => track(limiter.acquire(name, `c-${name}`), name, log));
    await flushMicrotasks();
    expect(log).toEqual(["a:run", "b:run"]);
    expect([limiter.inFlight, limiter.waiting]).toEqual([2, 3]);
    limiter.end((await runs[1])!);
    await flushMicrotasks();
    expect(log).toEqual(["a:run", "b:run", "c:run"]);
    limiter.end((await runs[0])!);
    limiter.end((await runs[2])!);
    await flushMicrotasks();
    expect(log).toEqual(["a:run", "b:run", "c:run", "d:run", "e:run"]);
    expect([limiter.inFlight, limiter.waiting]).toEqual([2, 0]);
    // Ending a run twice frees one slot, once.
    limiter.end((await runs[3])!);
    limiter.end((await runs[3])!);
    expect(limiter.inFlight).toBe(1);
  });

  test("a waiter keeps its place however long it waits; a stopped worker's wait ends with its signal and frees its place", async () => {
    const clock = new FakeClock(T0);
    const limiter = new ExecLimiter(1, clock);
    const log: string[] = [];
    const first = await limiter.acquire("a", "c-a");
    void track(limiter.acquire("b", "c-b"), "b", log);
    const ac = new AbortController();
    void track(limiter.acquire("c", "c-c", ac.signal), "c", log);
    void track(limiter.acquire("d", "c-d"), "d", log);
    // Many periods go by: nobody gives up its place.
    await clock.advance(60_000);
    expect([limiter.inFlight, limiter.waiting]).toEqual([1, 3]);
    ac.abort(new Error("stopped"));
    await flushMicrotasks();
    expect(log).toEqual(["c:aborted"]);
    limiter.end(first);
    await flushMicrotasks();
    expect(log).toEqual(["c:aborted", "b:run"]);
    expect(limiter.waiting).toBe(1);
  });

  test("one ExecSync per probe: while its last one is still in the runtime, its next attempt is skipped, not stacked", async () => {
    const clock = new FakeClock(T0);
    const limiter = new ExecLimiter(4, clock);
    const owner = {};
    const run = await limiter.acquire(owner, "c1");
    await clock.advance(6000);
    const err = await limiter.acquire(owner, "c1").catch((e: unknown) => e);
    expect((err as Error).message).toBe("not run: this probe's previous exec, started 6s ago, has not returned from the runtime");
    // Another probe of the same container (readiness beside liveness) is not held back.
    expect((await limiter.acquire({}, "c1")).containerId).toBe("c1");
    limiter.end(run);
    expect((await limiter.acquire(owner, "c1")).owner).toBe(owner);
  });

  test("a waiter whose probe got a slot meanwhile through an earlier wait is skipped when its own turn comes", async () => {
    const clock = new FakeClock(T0);
    const limiter = new ExecLimiter(2, clock);
    const log: string[] = [];
    const owner = {};
    const held = [await limiter.acquire("x", "c2"), await limiter.acquire("y", "c3")];
    void track(limiter.acquire(owner, "c1"), "first", log);
    void track(limiter.acquire(owner, "c1"), "second", log);
    void track(limiter.acquire("z", "c4"), "z", log);
    limiter.end(held[0]!);
    limiter.end(held[1]!);
    await flushMicrotasks();
    expect(log).toEqual(["first:run", "second:skipped", "z:run"]);
  });

  describe("runtimeWasSlow: whether a timeout is the runtime's, judged by the other containers' ExecSyncs in the same time", () => {
    /** Runs one ExecSync of `container` lasting `ms` from now, on the limiter's clock. */
    async function runFor(limiter: ExecLimiter, clock: FakeClock, container: string, ms: number): Promise<void> {
      const r = await limiter.acquire({}, container);
      clock.setTimer(ms, () => limiter.end(r));
    }

    test("most others were as slow: the runtime's; most others were quick: the container's", async () => {
      const clock = new FakeClock(T0);
      const limiter = new ExecLimiter(16, clock);
      const mine = await limiter.acquire({}, "hung");
      // Three others took 800 ms, one took 50 ms, while `hung` ran into its 1 s timeout.
      for (const [i, ms] of [800, 800, 800, 50].entries()) await runFor(limiter, clock, `c${i}`, ms);
      await clock.advance(1000);
      expect(limiter.runtimeWasSlow(mine, 1000)).toBe(true);

      const clock2 = new FakeClock(T0);
      const l2 = new ExecLimiter(16, clock2);
      const lone = await l2.acquire({}, "hung");
      for (const ms of [40, 60, 50, 900]) await runFor(l2, clock2, `c-${ms}`, ms);
      await clock2.advance(1000);
      expect(l2.runtimeWasSlow(lone, 1000)).toBe(false);
    });

    test("others still in the runtime as long count as slow; the same container's own ExecSyncs and runs that ended before it started do not count", async () => {
      const clock = new FakeClock(T0);
      const limiter = new ExecLimiter(16, clock);
      // Quick runs that ended before `mine` started say nothing about its time.
      for (let i = 0; i < 5; i++) await runFor(limiter, clock, `early-${i}`, 10);
      await clock.advance(100);
      const stuck = await limiter.acquire({}, "other");
      const mine = await limiter.acquire({}, "c1");
      // The same container's other probe, quick: not a peer.
      await runFor(limiter, clock, "c1", 10);
      await clock.advance(1000);
      expect(limiter.runtimeWasSlow(mine, 1000)).toBe(true);
      limiter.end(stuck);
    });

    test("no other container's ExecSync to compare with: no evidence, the timeout is the container's", async () => {
      const clock = new FakeClock(T0);
      const limiter = new ExecLimiter(4, clock);
      const mine = await limiter.acquire({}, "c1");
      await clock.advance(1000);
      expect(limiter.runtimeWasSlow(mine, 1000)).toBe(false);
      // One that started just now has not been there long enough to tell.
      const fresh = await limiter.acquire({}, "c2");
      expect(limiter.runtimeWasSlow(mine, 1000)).toBe(false);
      limiter.end(fresh);
    });
  });
});
