import { describe, expect, test } from "bun:test";
import { EventedPlegUnavailableError, Pleg, type ModeChange, type PlegOptions } from "../../src/pleg/pleg";
import type { PodLifecycleEvent } from "../../src/pleg/types";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";

function start(rt: FakeRuntime, opts: PlegOptions = {}) {
  const clock = new FakeClock();
  const modes: ModeChange[] = [];
  const errors: string[] = [];
  const pleg = new Pleg(rt, clock, { ...opts, onModeChange: (m) => modes.push(m), onError: (w) => errors.push(w) });
  const ac = new AbortController();
  const done = pleg.run(ac.signal);
  done.catch(() => {});
  const events: PodLifecycleEvent[] = [];
  /** Everything the PLEG has queued so far, taken off its queue without waiting. */
  const drain = async () => {
    while (pleg.events.length > 0) {
      const next = await pleg.events.next();
      if (!next.done) events.push(next.value);
    }
    return events;
  };
  const stop = async () => {
    ac.abort();
    await clock.advance(0);
    await done;
  };
  return { clock, pleg, modes, errors, done, stop, drain, events };
}

describe("Pleg, generic mode", () => {
  test("relists every period, measured from the end of the previous relist", async () => {
    const rt = new FakeRuntime();
    const { clock, pleg, modes, stop } = start(rt, { mode: "generic", relistPeriodMs: 1000 });
    await clock.advance(0);
    expect(pleg.relistStats.relists).toBe(1);
    await clock.advance(999);
    expect(pleg.relistStats.relists).toBe(1);
    await clock.advance(1);
    expect(pleg.relistStats.relists).toBe(2);
    await clock.advance(5000);
    expect(pleg.relistStats.relists).toBe(7);
    expect(modes.map((m) => m.mode)).toEqual(["generic"]);
    expect(rt.openStreams).toEqual([]);
    await stop();
  });

  test("reports every relist, failed ones too, with its duration and the interval since the previous", async () => {
    const rt = new FakeRuntime();
    const relists: { ok: boolean; durationMs: number; intervalMs: number | undefined }[] = [];
    const { clock, stop } = start(rt, { mode: "generic", relistPeriodMs: 1000, onRelist: (r) => relists.push(r) });
    await clock.advance(0);
    rt.failNext.set("listPodSandbox", [new Error("runtime hung")]);
    await clock.advance(1000);
    await clock.advance(1000);
    expect(relists).toEqual([
      { ok: true, durationMs: 0, intervalMs: undefined },
      { ok: false, durationMs: 0, intervalMs: 1000 },
      { ok: true, durationMs: 0, intervalMs: 1000 },
    ]);
    await stop();
  });

  test("is unhealthy once the last successful relist is older than 3 minutes, with the kubelet's message", async () => {
    const rt = new FakeRuntime();
    const { clock, pleg, stop } = start(rt, { mode: "generic" });
    expect(pleg.healthy()).toEqual({ ok: false, message: "pleg has yet to be successful" });
    await clock.advance(0);
    expect(pleg.healthy().ok).toBe(true);
    const fail = () => Object.assign(new Error("runtime hung"), {});
    rt.failNext.set("listPodSandbox", Array.from({ length: 400 }, fail));
    await clock.advance(180_000);
    expect(pleg.healthy().ok).toBe(true);
    await clock.advance(1500);
    expect(pleg.healthy()).toEqual({ ok: false, message: "pleg was last seen active 3m1.5s ago; threshold is 3m0s" });
    await stop();
  });
});

describe("Pleg, evented and auto modes", () => {
  test("auto on a runtime without GetContainerEvents falls back to generic at once and says why", async () => {
    const rt = new FakeRuntime();
    rt.eventsBehaviour = { code: 12, details: "unknown method GetContainerEvents for service runtime.v1.RuntimeService" };
    const { clock, pleg, modes, stop } = start(rt, { mode: "auto" });
    await clock.advance(0);
    expect(modes).toHaveLength(1);
    expect(modes[0]!.mode).toBe("generic");
    expect(modes[0]!.reason).toContain("does not implement GetContainerEvents");
    expect(pleg.relistPeriodMs).toBe(1000);
    expect(rt.openStreams).toHaveLength(1);
    await stop();
  });

  test("mode evented on such a runtime is an error, not a silent fallback", async () => {
    const rt = new FakeRuntime();
    rt.eventsBehaviour = { code: 12, details: "unknown method" };
    const { clock, done } = start(rt, { mode: "evented" });
    await clock.advance(0);
    await expect(done).rejects.toBeInstanceOf(EventedPlegUnavailableError);
  });

  test("a streaming runtime: evented mode, full relist only every 300 s, events relist just their pod", async () => {
    const rt = new FakeRuntime();
    const sb = rt.addSandbox({ uid: "u1", name: "job" });
    const c = rt.addContainer(sb, "main");
    const { clock, pleg, modes, drain, stop } = start(rt, { mode: "auto" });
    await clock.advance(1000); // the grace period passes with the stream open
    expect(modes.map((m) => m.mode)).toEqual(["evented"]);
    expect(pleg.relistPeriodMs).toBe(300_000);
    const relists = pleg.relistStats.relists;
    (await drain()).length = 0;
    rt.exit(c, 3);
    rt.emitEvent(c, "CONTAINER_STOPPED_EVENT");
    await flushMicrotasks();
    expect(await drain()).toEqual([expect.objectContaining({ type: "ContainerDied", containerId: c, exitCode: 3, mode: "evented" })]);
    await clock.advance(290_000);
    expect(pleg.relistStats.relists).toBe(relists);
    await clock.advance(11_000);
    expect(pleg.relistStats.relists).toBe(relists + 1);
    expect(pleg.healthy().ok).toBe(true);
    await stop();
  });

  test("the event is a hint only: the cache holds what the runtime lists, never the event's payload", async () => {
    const rt = new FakeRuntime();
    const sb = rt.addSandbox({ uid: "u1", name: "p" });
    const c = rt.addContainer(sb, "app");
    const { clock, pleg, drain, stop } = start(rt, { mode: "auto" });
    await clock.advance(1000);
    (await drain()).length = 0;
    // A stale or wrong event says the container exited with 137; the runtime says it still runs.
    rt.emitEvent(c, "CONTAINER_STOPPED_EVENT", {
      containersStatuses: [{ ...(await rt.containerStatus(c)), state: "CONTAINER_EXITED", exitCode: 137, finishedAt: 5 }],
    });
    await flushMicrotasks();
    expect(await drain()).toEqual([]);
    const cached = pleg.cache.get("u1")!.status!.containerStatuses[0]!;
    expect(cached.state).toBe("CONTAINER_RUNNING");
    expect(cached.exitCode).toBe(0);
    // And a CREATED event causes no relist at all.
    const before = pleg.relistStats.podRelists;
    rt.emitEvent(c, "CONTAINER_CREATED_EVENT");
    await flushMicrotasks();
    expect(pleg.relistStats.podRelists).toBe(before);
    await stop();
  });

  test("each stream failure forces a relist; five in a row fall back to 1 s relisting for good", async () => {
    const rt = new FakeRuntime();
    const { clock, pleg, modes, stop } = start(rt, { mode: "auto" });
    await clock.advance(1000);
    expect(pleg.mode).toBe("evented");
    for (let i = 1; i <= 5; i++) {
      const relists = pleg.relistStats.relists;
      rt.openStreams.at(-1)!.fail(14, "connection reset");
      await flushMicrotasks();
      await clock.advance(0);
      expect(pleg.relistStats.relists).toBe(relists + 1);
      if (i === 5) break;
      // Reopened at once after the first failure, then after 1 s, 2 s, 4 s.
      const delay = [0, 1000, 2000, 4000][i - 1]!;
      if (delay > 0) {
        expect(rt.openStreams).toHaveLength(i);
        await clock.advance(delay - 1);
        expect(rt.openStreams).toHaveLength(i);
        await clock.advance(1);
      }
      expect(rt.openStreams).toHaveLength(i + 1);
    }
    expect(rt.openStreams).toHaveLength(5);
    await clock.advance(60_000);
    expect(rt.openStreams).toHaveLength(5);
    expect(modes.map((m) => m.mode)).toEqual(["evented", "generic"]);
    expect(modes[1]!.reason).toContain("failed 5 times in a row");
    expect(pleg.relistPeriodMs).toBe(1000);
    expect(pleg.streamErrors).toBe(5);
    await stop();
  });

  test("a stream that stayed up for a while resets the failure count", async () => {
    const rt = new FakeRuntime();
    const { clock, pleg, stop } = start(rt, { mode: "auto", watcher: { stableAfterMs: 30_000 } });
    await clock.advance(1000);
    for (let i = 0; i < 8; i++) {
      await clock.advance(31_000);
      rt.openStreams.at(-1)!.fail(14, "connection reset");
      await flushMicrotasks();
      await clock.advance(0);
    }
    expect(pleg.mode).toBe("evented");
    expect(pleg.streamErrors).toBe(8);
    await stop();
  });
});
