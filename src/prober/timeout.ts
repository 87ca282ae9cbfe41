// One probe handler call bounded by the probe's timeout on the injected clock (so tests move time
// instead of waiting for it), and by the caller's signal (a stopped worker aborts its probe).
import type { Clock } from "../util/clock";

/** Why a handler's signal was aborted. */
export class ProbeTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs}ms`);
  }
}

/**
 * Runs work(signal). When timeoutMs pass first, the signal aborts with a ProbeTimeoutError and the
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
    const timer = clock.setTimer(timeoutMs, () => expire(new ProbeTimeoutError(timeoutMs)));
    if (outer?.aborted) return expire(outer.reason);
    outer?.addEventListener("abort", onOuterAbort, { once: true });
    work(ac.signal).then(
      (v) => finish(() => resolve(v)),
      (err) => finish(() => reject(err)),
    );
  });
}
