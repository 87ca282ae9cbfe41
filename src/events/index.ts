// src/events owns the kubelet's events (node.md §8): the EventRecorder seam every manager records through,
// client-go's EventCorrelator (aggregation, dedup, spam filter), the broadcaster's bounded queues and the
// two sinks — the API server (cluster mode) and the in-memory ring behind GET /events.
export { COMBINED_PREFIX, EventAggregator } from "./event-aggregator";
export { EventBroadcaster, makeEvent, MAX_QUEUED_EVENTS, type EventDrops } from "./event-broadcaster";
export { EventCorrelator, type CorrelateResult } from "./event-correlator";
export { EVENT_RING_SIZE, EventRing } from "./event-ring";
export { containerReference, nodeReference, podReference } from "./object-ref";
export * as reasons from "./reasons";
export { SpamFilter } from "./spam-filter";
export {
  EventSinkError,
  NO_EVENTS,
  type EventPatch,
  type EventRecorder,
  type EventSink,
  type EventSource,
  type EventType,
  type NodeEventRecorder,
} from "./types";
export { nodeConditionEventReasons, recordNodeConditionEvents } from "./node-condition-events";
export type { ApiEventSink } from "./api-event-sink";
export { loadApiEventSink } from "./lazy";
