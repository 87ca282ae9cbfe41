// The events phase: the agent's metrics and the node's events (src/events), always kept in memory for
// GET /events, and in a cluster posted to the API server with the node's credentials, as the kubelet's
// recorder does. "Starting kubelet." first, as the kubelet's Run records it before its managers start.
import { AgentMetrics } from "../server";
import { EventBroadcaster, type EventRecorder, EventRing, type NodeEventRecorder, loadApiEventSink, nodeReference } from "../events";
import type { ClusterNode } from "../cluster";
import { RealClock } from "../util";
import type { NodeContext } from "./node-context";

/** How long a stopping node waits for its queued events to be written. */
const EVENT_FLUSH_MS = 2_000;

export interface NodeEvents {
  metrics: AgentMetrics;
  broadcaster: EventBroadcaster;
  eventRing: EventRing;
  /** The pods' and containers' recorder. */
  recorder: EventRecorder;
  /** Events on the Node. */
  nodeEvent: NodeEventRecorder;
}

export async function startEvents(ctx: NodeContext, cluster: ClusterNode | undefined): Promise<NodeEvents> {
  const { clock, log, nodeName } = ctx;
  const metrics = new AgentMetrics();
  metrics.setNodeName(nodeName);
  // Every request of the cluster client (the node's status, Lease, pods, events, objects, reviews).
  if (cluster) metrics.countApiRequests(cluster.client.requests);
  const broadcaster = new EventBroadcaster({ clock, log, onDrop: (sink, reason) => metrics.incEventDropped(sink, reason) });
  const eventRing = new EventRing();
  metrics.setRuntimeSampler(() => ({ timers: RealClock.liveTimers(), eventRingEvents: eventRing.count, eventWatchers: eventRing.subscribers }));
  broadcaster.startRecordingToSink("memory", eventRing);
  // The API sink brings the Kubernetes client: loaded only with a cluster, as src/cluster is.
  if (cluster) broadcaster.startRecordingToSink("api", new (await loadApiEventSink()).ApiEventSink(cluster.eventClient));
  ctx.started.add("the event recorder", async () => {
    // What is queued gets a moment to go out (the pods' Killing events of a stop), then the rest is dropped.
    const ac = new AbortController();
    await Promise.race([broadcaster.idle(), clock.sleep(EVENT_FLUSH_MS, ac.signal).catch(() => {})]);
    ac.abort();
    broadcaster.shutdown();
  });
  const recorder = broadcaster.newRecorder({ component: "kubelet", host: nodeName });
  const nodeRef = nodeReference(nodeName);
  const nodeEvent: NodeEventRecorder = (type, reason, message) => recorder.event(nodeRef, type, reason, message);
  nodeEvent("Normal", "Starting", "Starting kubelet.");
  return { metrics, broadcaster, eventRing, recorder, nodeEvent };
}
