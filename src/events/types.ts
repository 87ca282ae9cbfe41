// What the rest of the agent sees of events: the EventRecorder seam (client-go's record.EventRecorder,
// as the kubelet holds it) and the shapes around it. A recorder is best effort: recording never waits,
// never throws and never fails a sync; what cannot be delivered is dropped and counted.
import type { Event, ObjectReference } from "kubernetes-types/core/v1";

export type EventType = "Normal" | "Warning";

/** Who reports (core/v1 EventSource): the kubelet's is {component: "kubelet", host: <node name>}. */
export interface EventSource {
  component: string;
  host: string;
}

/** The kubelet's recorder.Event(object, eventtype, reason, message) on an object reference. */
export interface EventRecorder {
  event(ref: ObjectReference, type: EventType, reason: string, message: string): void;
}

/** A recorder that records nothing: what a component gets when nobody listens (unit tests, tools). */
export const NO_EVENTS: EventRecorder = { event: () => {} };

/**
 * Where correlated events are written: the API server (ApiEventSink) or the in-memory ring (EventRing),
 * client-go's EventSink. A failure is an EventSinkError saying whether the write may be retried.
 */
export interface EventSink {
  /** Creates the event; answers it as stored (its resourceVersion). */
  create(event: Event): Promise<Event>;
  /** A repeat: the stored event named event.metadata.name gets the patch (count, lastTimestamp, message). */
  patch(event: Event, patch: EventPatch): Promise<Event>;
}

/** What a repeat changes on the stored event (client-go's two-way merge patch of a repeat has these). */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  message: string;
}

/**
 * A sink's failure: "notFound" (a patched event is gone: create it again), "rejected" (the server
 * refused it: never retried) or "transport" (the server could not be reached: retried).
 */
export class EventSinkError extends Error {
  constructor(
    readonly kind: "notFound" | "rejected" | "transport",
    message: string,
  ) {
    super(message);
  }
}

/**
 * An event on the node itself (involvedObject the Node): what the node's managers are given (the
 * container manager, the eviction manager, the OOM watcher, the garbage collectors), bound to the
 * node's reference by the wiring.
 */
export type NodeEventRecorder = (type: EventType, reason: string, message: string) => void;
