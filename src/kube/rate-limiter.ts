// TokenBucket: the client-side rate limit of an API client, as client-go applies a rest.Config's QPS
// and Burst (flowcontrol's token bucket over golang.org/x/time/rate): the bucket holds at most `burst`
// tokens and starts full, refills at `qps` tokens a second, and every request takes one before it is
// sent — a request arriving at a full bucket goes at once, the `burst + 1`-th in a row waits 1/qps.
//
// Reservations, not polling: `wait()` takes its token at once, letting the balance go below zero, and
// sleeps until the refill has paid it back. Each waiter's time is fixed when it asks, so waiters are
// served in the order they asked (FIFO) with one timer each and no re-checking. A waiter whose signal
// aborts gives its token back only if no one reserved after it (x/time/rate's rule: a later waiter's
// time already counted on that token), so an abort never lets the rate be exceeded.
import type { Clock } from "../util";

export interface RateLimit {
  /** Tokens added per second (the kubelet's kubeAPIQPS). */
  qps: number;
  /** The bucket's size: how many requests may go at once after a quiet spell (kubeAPIBurst). */
  burst: number;
}

export class TokenBucket {
  /** Tokens in the bucket at `at` (negative: owed to waiters). */
  private tokens: number;
  private at: number;
  /** Reservations made so far; a waiter's abort returns its token only when it holds the last. */
  private reservations = 0;

  constructor(
    readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {
    if (!(limit.qps > 0) || !Number.isFinite(limit.qps)) throw new RangeError(`rate limit qps ${limit.qps}: must be a positive number`);
    if (!Number.isInteger(limit.burst) || limit.burst < 1) throw new RangeError(`rate limit burst ${limit.burst}: must be a whole number of at least 1`);
    this.tokens = limit.burst;
    this.at = clock.now();
  }

  /** Tokens available now (fractional; negative while waiters are owed). */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /**
   * Resolves when this caller's token is due (at once when the bucket has one); rejects with the
   * signal's reason if it aborts first. The milliseconds waited are the resolved value.
   */
  async wait(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) throw signal.reason;
    this.refill();
    this.tokens -= 1;
    const mine = ++this.reservations;
    if (this.tokens >= 0) return 0;
    // Whole milliseconds, rounded up: never earlier than the refill pays the token back.
    const ms = Math.ceil((-this.tokens / this.limit.qps) * 1000);
    try {
      await this.clock.sleep(ms, signal);
    } catch (e) {
      if (mine === this.reservations) {
        this.refill();
        this.tokens = Math.min(this.limit.burst, this.tokens + 1);
      }
      throw e;
    }
    return ms;
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.at) {
      this.tokens = Math.min(this.limit.burst, this.tokens + ((now - this.at) / 1000) * this.limit.qps);
      this.at = now;
    }
  }
}

/** client-go logs a wait for a token longer than this (its longThrottleLatency is 50 ms at V(3); over 1 s it speaks up). */
export const LONG_THROTTLE_MS = 1_000;

type Send = (url: string | URL, init: RequestInit) => Promise<Response>;

/**
 * `send`, each request first waiting for a token of `bucket` (its own signal cuts the wait short), as
 * client-go's Request.tryThrottle does before every attempt — retries after a 429 included. The time
 * waited is added to `onWait`; a wait over LONG_THROTTLE_MS is logged at debug, as client-go's
 * "Waited before sending request … client-side throttling".
 */
export function throttledFetch(
  send: Send,
  bucket: TokenBucket,
  onWait: (ms: number) => void,
  debug?: (msg: string, fields: Record<string, unknown>) => void,
): Send {
  return async (url, init) => {
    const waited = await bucket.wait(init.signal ?? undefined);
    if (waited > 0) {
      onWait(waited);
      if (waited > LONG_THROTTLE_MS && debug) {
        const u = typeof url === "string" ? new URL(url) : url;
        debug("waited before sending request (client-side throttling)", { delay: `${waited}ms`, verb: init.method ?? "GET", path: u.pathname });
      }
    }
    return send(url, init);
  };
}
