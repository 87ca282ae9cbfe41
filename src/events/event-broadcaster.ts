// The EventBroadcaster and its recorders (client-go tools/record/event.go, as the kubelet's
// makeEventRecorder starts it): a recorder turns event(ref, type, reason, message) into a core/v1 Event
// and hands it to the broadcaster, which gives a copy to each sink's worker. Each worker has its own
// bounded queue (1000, client-go's maxQueuedEvents; a full queue drops the event and counts it), its
// own EventCorrelator, and writes one event at a time (recordToSink): a repeat is a PATCH, a patch of
// an event that is gone is a create, and a write the server could not be reached for is tried again,
// up to 12 times 10 s apart (the first wait randomised), while one it refused is given up at once.
//
// Nothing here is awaited by whoever records: event() only queues, so a slow or absent API server
// never holds a pod sync. The state machine of a worker: idle → draining (one write at a time,
// sleeping between tries) → idle when the queue is empty; stop() ends it after the write in flight.
import type { Event, ObjectReference } from "kubernetes-types/core/v1";
import { apiTime, type Clock, type Logger } from "../util";
import { eventName } from "./event-aggregator";
import { EventCorrelator, type EventCorrelatorOptions } from "./event-correlator";
import { EventSinkError, type EventRecorder, type EventSink, type EventSource, type EventType } from "./types";

/** An event's object for the log: namespace/name, or the name alone for a cluster-scoped one (a Node). */
const objectKey = (o: ObjectReference): string => (o.namespace ? `${o.namespace}/${o.name ?? ""}` : (o.name ?? ""));

/** client-go's maxQueuedEvents. */
export const MAX_QUEUED_EVENTS = 1000;
/** maxTriesPerEvent and the sleep between tries (defaultSleepDuration). */
export const MAX_TRIES_PER_EVENT = 12;
export const RETRY_SLEEP_MS = 10_000;

export interface EventBroadcasterOptions {
  clock: Clock;
  log: Logger;
  queueLength?: number;
  /** Jitter of the first retry; Math.random by default. */
  random?: () => number;
  /** Overrides of the correlator's limits (tests). */
  correlator?: Omit<EventCorrelatorOptions, "clock">;
  /** Each event a sink did not get (the node counts them in nodeagent_events_dropped_total). */
  onDrop?(sink: string, reason: "queue_full" | "spam" | "failed"): void;
}

/** Counts of what the broadcaster did not deliver, per sink name. */
export interface EventDrops {
  /** Dropped because the sink's queue was full. */
  queueFull: number;
  /** Skipped by the spam filter. */
  spam: number;
  /** Given up: refused by the sink, or still failing after MAX_TRIES_PER_EVENT. */
  failed: number;
}

class SinkWorker {
  private readonly queue: Event[] = [];
  private readonly correlator: EventCorrelator;
  private draining: Promise<void> | undefined;
  private readonly stopped = new AbortController();
  readonly drops: EventDrops = { queueFull: 0, spam: 0, failed: 0 };

  constructor(
    readonly name: string,
    private readonly sink: EventSink,
    private readonly o: EventBroadcasterOptions,
  ) {
    this.correlator = new EventCorrelator({ clock: o.clock, ...o.correlator });
  }

  /** The object with this UID is gone: its correlation state goes (EventCorrelator.forgetObject). */
  forgetObject(uid: string): void {
    this.correlator.forgetObject(uid);
  }

  /** Entries the correlator holds (tests). */
  get correlatorSize(): number {
    return this.correlator.size;
  }

  enqueue(e: Event): void {
    if (this.stopped.signal.aborted) return;
    if (this.queue.length >= (this.o.queueLength ?? MAX_QUEUED_EVENTS)) {
      this.drops.queueFull++;
      this.o.onDrop?.(this.name, "queue_full");
      return;
    }
    this.queue.push(e);
    this.kick();
  }

  /** Starts draining unless a drain runs; one queued between a drain's last look and its end starts the next. */
  private kick(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.queue.length > 0 && !this.stopped.signal.aborted) this.kick();
    });
  }

  /** Resolves when the queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  stop(): void {
    this.stopped.abort();
    this.queue.length = 0;
  }

  private async drain(): Promise<void> {
    // Writes start after the caller's turn: event() returns before any sink is touched.
    await Promise.resolve();
    for (let e = this.queue.shift(); e; e = this.queue.shift()) {
      try {
        await this.recordToSink(e);
      } catch (err) {
        this.drops.failed++;
        this.o.onDrop?.(this.name, "failed");
        this.o.log.warn("events: writing an event failed", { sink: this.name, err });
      }
    }
  }

  private async recordToSink(input: Event): Promise<void> {
    const r = this.correlator.correlate(input);
    if (r.skip) {
      this.drops.spam++;
      this.o.onDrop?.(this.name, "spam");
      return;
    }
    for (let tries = 1; ; tries++) {
      const outcome = await this.write(r.event, r.patch);
      if (outcome === "done") return;
      if (outcome === "refused") {
        this.drops.failed++;
        this.o.onDrop?.(this.name, "failed");
        return;
      }
      if (tries >= MAX_TRIES_PER_EVENT) {
        this.drops.failed++;
        this.o.onDrop?.(this.name, "failed");
        this.o.log.warn("events: unable to write event (retry limit exceeded)", {
          sink: this.name,
          reason: r.event.reason,
          kind: r.event.involvedObject.kind,
          object: objectKey(r.event.involvedObject),
        });
        return;
      }
      const wait = tries === 1 ? RETRY_SLEEP_MS * (this.o.random ?? Math.random)() : RETRY_SLEEP_MS;
      try {
        await this.o.clock.sleep(wait, this.stopped.signal);
      } catch {
        return;
      }
    }
  }

  /** One try (client-go's recordEvent): patch a repeat, create a new one or one whose patch found nothing. */
  private async write(e: Event, patch: Parameters<EventSink["patch"]>[1] | undefined): Promise<"done" | "refused" | "retry"> {
    try {
      let stored: Event | undefined;
      if (patch) {
        try {
          stored = await this.sink.patch(e, patch);
        } catch (err) {
          if (!(err instanceof EventSinkError && err.kind === "notFound")) throw err;
        }
      }
      if (!stored) {
        const { resourceVersion: _rv, ...metadata } = e.metadata;
        stored = await this.sink.create({ ...e, metadata });
      }
      this.correlator.updateState(stored);
      return "done";
    } catch (err) {
      if (err instanceof EventSinkError && err.kind === "transport") return "retry";
      if (!(err instanceof EventSinkError)) return "retry";
      this.o.log.warn("events: server rejected event (will not retry)", {
        sink: this.name,
        reason: e.reason,
        kind: e.involvedObject.kind,
        object: objectKey(e.involvedObject),
        err,
      });
      return "refused";
    }
  }
}

export class EventBroadcaster {
  private readonly workers: SinkWorker[] = [];

  constructor(private readonly o: EventBroadcasterOptions) {}

  /** Every event recorded from now on also goes to this sink (StartRecordingToSink). */
  startRecordingToSink(name: string, sink: EventSink): void {
    this.workers.push(new SinkWorker(name, sink, this.o));
  }

  /** A recorder for one source (NewRecorder): the kubelet's is {component: "kubelet", host: <node>}. */
  newRecorder(source: EventSource): EventRecorder {
    let seq = 0;
    return {
      event: (ref: ObjectReference, type: EventType, reason: string, message: string) => {
        try {
          this.action(makeEvent(ref, type, reason, message, source, this.o.clock.now(), seq++));
        } catch (err) {
          this.o.log.warn("events: event not recorded", { reason, err });
        }
      },
    };
  }

  /** What each sink did not deliver. */
  drops(): Record<string, EventDrops> {
    return Object.fromEntries(this.workers.map((w) => [w.name, { ...w.drops }]));
  }

  /** Resolves once every queued event has been written or given up. */
  async idle(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.idle()));
  }

  /**
   * A pod that is gone: each sink's correlator forgets it, so that what they hold stays bounded by
   * the pods on the node rather than growing to the LRU's 4096 entries over hours of churn. An event
   * of the pod still queued is correlated afresh after this, and forgotten with the cache's LRU.
   */
  forgetObject(uid: string): void {
    for (const w of this.workers) w.forgetObject(uid);
  }

  /** Entries the sinks' correlators hold (tests). */
  correlatorSize(): number {
    return this.workers.reduce((n, w) => n + w.correlatorSize, 0);
  }

  /** Stops every worker; queued events are dropped and a retry in progress ends. */
  shutdown(): void {
    for (const w of this.workers) w.stop();
  }

  private action(e: Event): void {
    for (const w of this.workers) w.enqueue(e);
  }
}

/**
 * client-go's makeEvent + generateEvent: namespace of the object ("default" for a cluster-scoped one),
 * name `<object name>.<hex UnixNano>`, count 1, first and last timestamps now. reportingComponent and
 * reportingInstance repeat the source (later client-go versions fill them so; the 1.24 kubelet leaves
 * them empty and the API server keeps them empty).
 */
export function makeEvent(ref: ObjectReference, type: EventType, reason: string, message: string, source: EventSource, nowMs: number, seq = 0): Event {
  const t = apiTime(nowMs);
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: eventName(ref.name ?? "", nowMs, seq), namespace: ref.namespace || "default" },
    involvedObject: ref,
    reason,
    message,
    type,
    source: { component: source.component, host: source.host },
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    reportingComponent: source.component,
    reportingInstance: source.host,
  };
}
