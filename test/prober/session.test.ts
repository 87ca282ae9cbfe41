// runProbeSession, the engine of `nodeagent probe run`, on a FakeClock: when it stops, and that its
// verdicts are the thresholds' (the same state machine as the agent's workers).
import { describe, expect, test } from "bun:test";
import { Prober } from "../../src/prober/prober";
import { runProbeSession, type AttemptReport, type ProbeSessionOptions } from "../../src/prober/session";
import type { ProbeTiming } from "../../src/prober/types";
import { FakeClock } from "../../src/util/clock";
import { FakeExec, type ExecBehaviour } from "./fakes";

const T0 = Date.UTC(2026, 0, 1);
const timing = (t: Partial<ProbeTiming> = {}): ProbeTiming => ({
  initialDelayMs: 0,
  periodMs: 1000,
  timeoutMs: 1000,
  successThreshold: 1,
  failureThreshold: 3,
  ...t,
});

function session(answers: ExecBehaviour[], o: Partial<ProbeSessionOptions> = {}) {
  const clock = new FakeClock(T0);
  const exec = new FakeExec();
  exec.queue("c1", ...answers);
  const reports: AttemptReport[] = [];
  const done = runProbeSession({
    prober: new Prober(exec, clock),
    clock,
    action: () => ({ kind: "exec", containerId: "c1", command: ["check"] }),
    timing: timing(),
    type: "readiness",
    onAttempt: (r) => reports.push(r),
    ...o,
  });
  const line = () => reports.map((r) => `${r.result[0]}${r.run}→${r.verdict}`);
  return { clock, exec, reports, done, line };
}

describe("probe sessions", () => {
  test("by default they stop as soon as the thresholds settle: one success, or failureThreshold failures", async () => {
    const ok = session([{ exit: 0 }]);
    expect(await ok.done).toEqual({ verdict: "success", attempts: 1, settled: true, interrupted: false });

    const bad = session([{ exit: 1 }, { exit: 1 }, { exit: 1 }, { exit: 0 }]);
    await bad.clock.advance(5000);
    expect(await bad.done).toEqual({ verdict: "failure", attempts: 3, settled: true, interrupted: false });
    expect(bad.line()).toEqual(["f1→failure", "f2→failure", "f3→failure"]);
    expect(bad.reports.map((r) => (r.time - T0) / 1000)).toEqual([0, 1, 2]);
  });

  test("liveness semantics: failures below the threshold leave the verdict at success", async () => {
    const s = session([{ exit: 1 }, { exit: 1 }, { exit: 0 }], { type: "liveness" });
    await s.clock.advance(5000);
    expect(s.line()).toEqual(["f1→success", "f2→success", "s1→success"]);
    expect((await s.done).verdict).toBe("success");
  });

  test("a flapping probe gives up after successThreshold + failureThreshold attempts, keeping the verdict it had", async () => {
    const s = session([{ exit: 0 }, { exit: 1 }, { exit: 0 }, { exit: 1 }, { exit: 0 }], { timing: timing({ successThreshold: 2, failureThreshold: 2 }) });
    await s.clock.advance(10_000);
    expect(await s.done).toEqual({ verdict: "failure", attempts: 4, settled: false, interrupted: false });
  });

  test("--count runs exactly that many attempts, past a settled verdict", async () => {
    const s = session([{ exit: 0 }, { exit: 1 }, { exit: 1 }, { exit: 1 }, { exit: 0 }], { count: 5 });
    await s.clock.advance(10_000);
    expect(s.line()).toEqual(["s1→success", "f1→success", "f2→success", "f3→failure", "s1→success"]);
    expect(await s.done).toMatchObject({ verdict: "success", attempts: 5 });
  });

  test("errored attempts are reported but move no threshold, as in the agent", async () => {
    const s = session([{ grpcCode: 14 }, { grpcCode: 14 }, { grpcCode: 14 }, { exit: 0 }], { count: 2 });
    await s.clock.advance(2000);
    expect(s.reports.map((r) => [r.result, r.run, r.verdict])).toEqual([
      ["error", 0, "failure"],
      ["success", 1, "success"],
    ]);
    expect(s.reports[0]!.output).toContain("UNAVAILABLE");
  });

  test("--watch runs until the signal, and waits out the initial delay from the container's start", async () => {
    const ac = new AbortController();
    const s = session([], { watch: true, signal: ac.signal, startedAt: T0 - 1000, timing: timing({ initialDelayMs: 3000, periodMs: 2000 }) });
    await s.clock.advance(1999);
    expect(s.reports).toEqual([]);
    await s.clock.advance(7001);
    expect(s.reports.map((r) => (r.time - T0) / 1000)).toEqual([2, 4, 6, 8]);
    ac.abort();
    expect(await s.done).toEqual({ verdict: "success", attempts: 4, settled: true, interrupted: true });
  });
});
