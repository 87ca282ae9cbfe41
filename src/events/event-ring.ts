// The in-memory sink: the node's last events (1000 by default), what GET /events serves and
// `nodeagent events` shows, in standalone mode as in a cluster. It stores what the correlator hands
// it like an API server would: a create adds the event (the oldest goes when full), a patch of a
// repeat updates its count, lastTimestamp and message in place (a patch of one already pushed out
// answers notFound, and the broadcaster creates it again).
import type { Event } from "kubernetes-types/core/v1";
import { EventSinkError, type EventPatch, type EventSink } from "./types";

export const EVENT_RING_SIZE = 1000;

export class EventRing implements EventSink {
  /** By namespace/name, in the order they were created (a Map keeps it). */
  private readonly events = new Map<string, Event>();
  private version = 0;
  private readonly listeners = new Set<(e: Event) => void>();

  constructor(private readonly size = EVENT_RING_SIZE) {}

  async create(event: Event): Promise<Event> {
    const stored: Event = { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.version) } };
    const key = keyOf(event);
    this.events.delete(key);
    this.events.set(key, stored);
    if (this.events.size > this.size) this.events.delete(this.events.keys().next().value!);
    this.notify(stored);
    return stored;
  }

  async patch(event: Event, patch: EventPatch): Promise<Event> {
    const key = keyOf(event);
    const old = this.events.get(key);
    if (!old) throw new EventSinkError("notFound", `events "${event.metadata.name}" not found`);
    const stored: Event = { ...old, ...patch, metadata: { ...old.metadata, resourceVersion: String(++this.version) } };
    this.events.set(key, stored);
    this.notify(stored);
    return stored;
  }

  /** How many events are kept now (at most the ring's size): the nodeagent_event_ring_events gauge. */
  get count(): number {
    return this.events.size;
  }

  /** Subscribers of GET /events?watch: each must go with its connection. */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** The events kept, oldest first. */
  list(): Event[] {
    return [...this.events.values()];
  }

  /** Calls fn with every event stored or updated from now on; returns the unsubscribe. */
  subscribe(fn: (e: Event) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(e: Event): void {
    for (const fn of this.listeners) fn(e);
  }
}

function keyOf(e: Event): string {
  return `${e.metadata.namespace ?? ""}/${e.metadata.name ?? ""}`;
}
