// src/events owns the kubelet's events (issue 18, node.md §8): the EventRecorder seam every manager
// records through, the core/v1 Event it makes (source {component: "kubelet", host: <node>}, the
// object references of object-ref.ts), client-go's EventCorrelator (aggregation, dedup into
// count++ PATCHes, the spam filter), the broadcaster's bounded per-sink queues, and the two sinks:
// the API server (ApiEventSink, cluster mode) and the in-memory ring behind GET /events (EventRing,
// always). api-event-sink.ts is imported on its own, only in a cluster: it brings the Kubernetes
// client, which a standalone agent never loads. It owns no reason's wording: each call site says what the kubelet says there.
export { COMBINED_PREFIX, EventAggregator } from "./event-aggregator";
export { EventBroadcaster, makeEvent, MAX_QUEUED_EVENTS, type EventDrops } from "./event-broadcaster";
export { EventCorrelator, type CorrelateResult } from "./event-correlator";
export { EVENT_RING_SIZE, EventRing } from "./event-ring";
export { containerReference, nodeReference, podReference } from "./object-ref";
export * as reasons from "./reasons";
export { SpamFilter } from "./spam-filter";
export { EventSinkError, NO_EVENTS, type EventPatch, type EventRecorder, type EventSink, type EventSource, type EventType, type NodeEventRecorder } from "./types";
export { nodeConditionEventReasons, recordNodeConditionEvents } from "./node-condition-events";
