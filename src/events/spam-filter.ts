// The spam filter of client-go's EventCorrelator (tools/record/events_cache.go EventSourceObjectSpamFilter):
// each source+object has a token bucket, 25 events of burst refilled at one per 5 minutes; an event
// that finds the bucket empty is dropped. It runs after aggregation and dedup, so a repeat that would
// only be a count++ costs a token too, as in client-go.
import type { Event } from "kubernetes-types/core/v1";
import type { Clock } from "../util";
import { LruCache } from "./lru";

export const SPAM_BURST = 25;
/** One token every 300 s (defaultSpamQPS = 1/300). */
export const SPAM_REFILL_MS = 300_000;
export const CACHE_SIZE = 4096;

/** A passive token bucket (flowcontrol.NewTokenBucketPassiveRateLimiterWithClock): tokens accrue with time, up to the burst. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly burst: number,
    private readonly refillMs: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  tryAccept(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) / this.refillMs);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** getSpamKey: source and involved object (not the reason, type or message). */
export function spamKey(e: Event): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion].map((v) => v ?? "").join("\u0000");
}

/** The correlator's keys join their fields with NUL: this one is of the object with that UID. */
export function keyHasUid(key: string, uid: string): boolean {
  return uid !== "" && key.includes(`\u0000${uid}\u0000`);
}

export class SpamFilter {
  private readonly buckets = new LruCache<TokenBucket>(CACHE_SIZE);

  constructor(
    private readonly clock: Clock,
    private readonly burst = SPAM_BURST,
    private readonly refillMs = SPAM_REFILL_MS,
  ) {}

  /** Whether the event is to be dropped. */
  /** Forgets the bucket of the object with this UID (it is gone). */
  forgetObject(uid: string): void {
    this.buckets.deleteWhere((k) => keyHasUid(k, uid));
  }

  get size(): number {
    return this.buckets.size;
  }

  filter(e: Event): boolean {
    const key = spamKey(e);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.burst, this.refillMs, this.clock);
      this.buckets.set(key, bucket);
    }
    return !bucket.tryAccept();
  }
}
