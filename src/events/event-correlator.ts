// client-go's EventCorrelator (tools/record/events_cache.go), the three steps every event passes
// before a sink sees it, each with the clock it is given:
//   1. aggregation (event-aggregator.ts): 10 similar events with different messages within 10 minutes
//      become one "(combined from similar events): …" event;
//   2. dedup (the eventLogger): an event seen before under the same key is a repeat — it takes the
//      stored event's name and firstTimestamp, count = last count + 1, and is written as a PATCH of
//      count, lastTimestamp and message instead of a new object;
//   3. the spam filter (spam-filter.ts): 25 events of burst per source+object, then one per 5 minutes;
//      the rest are skipped.
// After a sink stored an event, updateState() records what it answered (name, count, resourceVersion),
// so the next repeat patches that object.
import type { Event } from "kubernetes-types/core/v1";
import type { Clock } from "../util";
import { EventAggregator, eventKey } from "./event-aggregator";
import { LruCache } from "./lru";
import { CACHE_SIZE, keyHasUid, SpamFilter } from "./spam-filter";
import type { EventPatch } from "./types";

export interface CorrelateResult {
  /** The event to write: new (count 1) or a repeat (count > 1, with `patch`). */
  event: Event;
  /** For a repeat: what changes on the stored event. */
  patch?: EventPatch;
  /** The spam filter dropped it: nothing is written. */
  skip: boolean;
}

/** What is remembered of a written event (client-go's eventLog). */
interface Observation {
  count: number;
  firstTimestamp: string;
  name: string;
  resourceVersion?: string;
}

export interface EventCorrelatorOptions {
  clock: Clock;
  spamBurst?: number;
  spamRefillMs?: number;
  aggregateMaxEvents?: number;
  aggregateIntervalMs?: number;
}

export class EventCorrelator {
  private readonly aggregator: EventAggregator;
  private readonly spam: SpamFilter;
  private readonly observed = new LruCache<Observation>(CACHE_SIZE);
  /** Each written event's dedup key by its name, for updateState. */
  private readonly keysByName = new LruCache<string>(CACHE_SIZE);

  constructor(o: EventCorrelatorOptions) {
    this.aggregator = new EventAggregator(o.clock, o.aggregateMaxEvents, o.aggregateIntervalMs);
    this.spam = new SpamFilter(o.clock, o.spamBurst, o.spamRefillMs);
  }

  correlate(input: Event): CorrelateResult {
    const { event: aggregated, key } = this.aggregator.aggregate(input);
    let event = aggregated;
    let patch: EventPatch | undefined;
    const last = this.observed.get(key);
    if (last && last.count > 0) {
      event = {
        ...aggregated,
        metadata: { ...aggregated.metadata, name: last.name, ...(last.resourceVersion ? { resourceVersion: last.resourceVersion } : {}) },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = { count: event.count!, lastTimestamp: event.lastTimestamp!, message: event.message ?? "" };
    }
    this.observed.set(key, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? "",
      name: event.metadata.name ?? "",
      ...(event.metadata.resourceVersion ? { resourceVersion: event.metadata.resourceVersion } : {}),
    });
    this.keysByName.set(event.metadata.name ?? "", key);
    if (this.spam.filter(event)) return { event, skip: true };
    return { event, ...(patch ? { patch } : {}), skip: false };
  }

  /**
   * Forgets what the four caches hold about the object with this UID, a pod that is gone. client-go
   * only bounds them (an LRU of 4096 entries each), so on a node where pods come and go they fill
   * up over hours with pods that will never have an event again; a removed pod's UID does not come
   * back (a static pod's does, and then its first event is new again rather than a repeat).
   */
  forgetObject(uid: string): void {
    this.aggregator.forgetObject(uid);
    this.spam.forgetObject(uid);
    this.observed.deleteWhere((k) => keyHasUid(k, uid));
    this.keysByName.deleteWhere((_name, k) => keyHasUid(k, uid));
  }

  /** Entries of the four caches, for tests. */
  get size(): number {
    return this.aggregator.size + this.spam.size + this.observed.size + this.keysByName.size;
  }

  /**
   * What a sink answered for a written event (client-go's UpdateState): the stored name, count and
   * resourceVersion are what the next repeat patches.
   */
  updateState(stored: Event): void {
    const key = this.keysByName.get(stored.metadata.name ?? "") ?? eventKey(stored);
    this.observed.set(key, {
      count: stored.count ?? 1,
      firstTimestamp: stored.firstTimestamp ?? "",
      name: stored.metadata.name ?? "",
      ...(stored.metadata.resourceVersion ? { resourceVersion: stored.metadata.resourceVersion } : {}),
    });
  }
}
