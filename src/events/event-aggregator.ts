// The aggregation step of client-go's EventCorrelator (events_cache.go EventAggregator): events that
// differ only in their message are "similar" (same source, object, type and reason). When 10 distinct
// messages of one such group are seen with no more than 10 minutes between them, the event is replaced
// by one aggregate event, "(combined from similar events): <message>", keyed by the group, so that the
// following ones become repeats (count++) of it rather than new objects.
import type { Event } from "kubernetes-types/core/v1";
import { apiTime, type Clock } from "../util";
import { CACHE_SIZE, keyHasUid } from "./spam-filter";
import { LruCache } from "./lru";

export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_MS = 600_000;
export const COMBINED_PREFIX = "(combined from similar events): ";

/** getEventKey: everything that makes two events the same one, message included. */
export function eventKey(e: Event): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]
    .map((v) => v ?? "")
    .join("\u0000");
}

/** EventAggregatorByReasonFunc: the group key (no message, no fieldPath) and the message. */
export function aggregateKey(e: Event): string {
  const o = e.involvedObject;
  return [e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]
    .map((v) => v ?? "")
    .join("\u0000");
}

interface AggregateRecord {
  messages: Set<string>;
  last: number;
}

/** The kubelet's event object name: `<object name>.<hex nanoseconds>` (client-go makeEvent). */
export function eventName(objectName: string, nowMs: number, seq = 0): string {
  // UnixNano in hex; the sub-millisecond part tells apart events of the same millisecond.
  return `${objectName}.${(BigInt(nowMs) * 1_000_000n + BigInt(seq % 1_000_000)).toString(16)}`;
}

export class EventAggregator {
  private readonly cache = new LruCache<AggregateRecord>(CACHE_SIZE);
  private seq = 0;

  constructor(
    private readonly clock: Clock,
    private readonly maxEvents = AGGREGATE_MAX_EVENTS,
    private readonly intervalMs = AGGREGATE_INTERVAL_MS,
  ) {}

  /** Forgets the groups of the object with this UID (it is gone). */
  forgetObject(uid: string): void {
    this.cache.deleteWhere((k) => keyHasUid(k, uid));
  }

  get size(): number {
    return this.cache.size;
  }

  /** The event to go on with, and the key its repeats are recognised by. */
  aggregate(e: Event): { event: Event; key: string } {
    const now = this.clock.now();
    const group = aggregateKey(e);
    let record = this.cache.get(group);
    if (!record || now - record.last > this.intervalMs) record = { messages: new Set(), last: now };
    record.messages.add(e.message ?? "");
    record.last = now;
    this.cache.set(group, record);
    if (record.messages.size < this.maxEvents) return { event: e, key: eventKey(e) };
    // Keep the set under the limit (client-go pops any one): the group stays aggregated.
    record.messages.delete(record.messages.values().next().value!);
    const t = apiTime(now);
    const combined: Event = {
      ...e,
      metadata: { name: eventName(e.involvedObject.name ?? "", now, ++this.seq), namespace: e.metadata.namespace },
      count: 1,
      firstTimestamp: t,
      lastTimestamp: t,
      message: COMBINED_PREFIX + (e.message ?? ""),
    };
    return { event: combined, key: group };
  }
}
