// One probe handler call bounded by the probe's timeout on the injected clock (so tests move time
// instead of waiting for it), and by the caller's signal (a stopped worker aborts its probe).
//
// The timeout is the container's time, not the agent's: when the deadline's timer fires late, the
// agent's event loop was busy (a long sync, a GC pause, a starved CPU) and an answer that came in
// meanwhile may be waiting behind the timer, unread. The deadline then moves on by as long as the
// timer was late, at most by the timeout once more in all, and only an answer still missing when the
// agent did look in time is a timeout.
import type { Clock, Timer } from "../util";

/** Timer lateness below this is the event loop's ordinary jitter, not the agent being stalled. */
export const STALL_TOLERANCE_MS = 50;

/** Why a handler's signal was aborted. */
export class ProbeTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs}ms`);
  }
}

/**
 * Runs work(signal). A timeoutMs that is not finite (Infinity) sets no deadline: only the caller's
 * signal ends the wait (a lifecycle hook, which the kubelet runs without a timeout). When timeoutMs pass first, the signal aborts with a ProbeTimeoutError and the
 * result is onTimeout(), whatever work does afterwards; when the caller's signal aborts first, the
 * result is onTimeout() too (nobody reads it). The handler should stop its I/O on abort.
 */
export function withTimeout<T>(
  clock: Clock,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  onTimeout: () => T,
): Promise<T> {
  const ac = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      timer.cancel();
      outer?.removeEventListener("abort", onOuterAbort);
      fn();
    };
    const expire = (reason: unknown) => {
      ac.abort(reason);
      finish(() => resolve(onTimeout()));
    };
    const onOuterAbort = () => expire(outer!.reason);
    let deadline = clock.now() + timeoutMs;
    let extended = 0;
    const onDeadline = () => {
      const late = clock.now() - deadline;
      if (late > STALL_TOLERANCE_MS && extended < timeoutMs) {
        const more = Math.min(late, timeoutMs - extended);
        extended += more;
        deadline = clock.now() + more;
        timer = clock.setTimer(more, onDeadline);
        return;
      }
      expire(new ProbeTimeoutError(timeoutMs));
    };
    let timer: Timer = Number.isFinite(timeoutMs) ? clock.setTimer(timeoutMs, onDeadline) : { cancel: () => {} };
    if (outer?.aborted) return expire(outer.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    work(ac.signal).then(
      (v) => finish(() => resolve(v)),
      (err) => finish(() => reject(err)),
    );
  });
}
