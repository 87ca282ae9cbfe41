// A map whose entries expire a fixed time after they were set, on an injected clock: the shape of
// k8s.io/apimachinery's LRUExpireCache as the API server's delegating authenticator and authorizer use
// it (token review answers for authentication.webhook.cacheTTL, access reviews for
// cacheAuthorizedTTL / cacheUnauthorizedTTL). Entries are dropped when read after expiry, and the
// oldest first once `maxEntries` is reached (LRUExpireCache's size bound, 1024 for the webhooks
// there), so a caller sending a new token per request cannot grow it without bound.
import type { Clock } from "./clock";

export class ExpiringCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly clock: Pick<Clock, "now">,
    private readonly maxEntries = 1024,
  ) {}

  /** The value set for `key` less than its TTL ago, else undefined. */
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.clock.now() >= e.expires) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last, so eviction takes the least recently used.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value;
  }

  /** Keeps `value` for `ttlMs` (nothing is kept for a TTL of 0 or less). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expires: this.clock.now() + ttlMs });
  }

  get size(): number {
    return this.entries.size;
  }
}
