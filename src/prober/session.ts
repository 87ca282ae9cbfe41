// A probe run on demand (`nodeagent probe run`): attempts every period through the same Prober and
// the same threshold state machine as the agent's workers, each attempt reported with the verdict it
// leaves. It stops after `count` attempts, at the caller's signal (watch), or by default as soon as
// the thresholds settle (a run of successThreshold successes or failureThreshold failures), giving
// up after successThreshold + failureThreshold attempts that never settle (a flapping probe).
import type { Clock } from "../util";
import type { Prober } from "./prober";
import { initialResult, ProbeThresholds } from "./thresholds";
import { ProbeTicker } from "./ticker";
import type { ProbeAction, ProbeAttempt, ProbeResult, ProbeTiming, ProbeType } from "./types";

export interface ProbeSessionOptions {
  prober: Prober;
  clock: Clock;
  /** Resolves the action for each try (a spec error is an errored attempt, as in the agent). */
  action: () => ProbeAction;
  timing: ProbeTiming;
  /** Whose semantics: the initial verdict (readiness failure, liveness success, startup unknown). */
  type: ProbeType;
  /** When the container started (ms): the first attempt waits out initialDelaySeconds from here. */
  startedAt?: number;
  /** Exactly this many attempts. */
  count?: number;
  /** Until the signal aborts. */
  watch?: boolean;
  signal?: AbortSignal;
  onAttempt(report: AttemptReport): void;
}

export interface AttemptReport extends ProbeAttempt {
  /** 1, 2, … */
  attempt: number;
  /** When the attempt started (ms since the epoch). */
  time: number;
  /** The verdict after this attempt, as the agent would hold it. */
  verdict: ProbeResult;
  /** This attempt completed a threshold run. */
  settled: boolean;
  /** Attempts in a row with this attempt's result (0 for an errored attempt, which counts in no run). */
  run: number;
}

export interface ProbeSessionResult {
  verdict: ProbeResult;
  attempts: number;
  /** The last counted attempt completed a threshold run. */
  settled: boolean;
  /** The session was interrupted (signal) before it would have ended by itself. */
  interrupted: boolean;
}

export async function runProbeSession(o: ProbeSessionOptions): Promise<ProbeSessionResult> {
  const { clock, timing } = o;
  const thresholds = new ProbeThresholds(timing.successThreshold, timing.failureThreshold, initialResult(o.type));
  const limit = o.watch ? Infinity : (o.count ?? timing.successThreshold + timing.failureThreshold);
  let attempts = 0;
  let settled = false;
  try {
    const delay = o.startedAt === undefined ? 0 : o.startedAt + timing.initialDelayMs - clock.now();
    if (delay > 0) await clock.sleep(delay, o.signal);
    const ticker = new ProbeTicker(clock, timing.periodMs);
    for (;;) {
      if (o.signal?.aborted) return { verdict: thresholds.verdict, attempts, settled, interrupted: true };
      const time = clock.now();
      const a = await o.prober.attempt(o.action, timing.timeoutMs, o.signal);
      if (o.signal?.aborted) return { verdict: thresholds.verdict, attempts, settled, interrupted: true };
      attempts++;
      let run = 0;
      if (a.result !== "error") {
        const step = thresholds.observe(a.result);
        settled = step.settled;
        run = step.run;
      }
      o.onAttempt({ ...a, attempt: attempts, time, verdict: thresholds.verdict, settled: a.result !== "error" && settled, run });
      if (attempts >= limit || (o.count === undefined && !o.watch && settled && a.result !== "error")) break;
      const wait = ticker.untilNextTick();
      if (wait > 0) await clock.sleep(wait, o.signal);
    }
  } catch (err) {
    if (!o.signal?.aborted) throw err;
    return { verdict: thresholds.verdict, attempts, settled, interrupted: true };
  }
  return { verdict: thresholds.verdict, attempts, settled, interrupted: false };
}
