// The API server sink (client-go's EventSinkImpl over the core/v1 events client, as the kubelet's
// StartRecordingToSink uses it): POST /api/v1/namespaces/<ns>/events for a new event, a strategic
// merge PATCH of count, lastTimestamp and message for a repeat. The node's own credentials are enough:
// the Node authorizer's system:node rules allow events create and patch (not list or get).
// Errors are classified for the broadcaster: 404 → notFound, any other HTTP answer → rejected,
// no answer → transport (retried).
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Event } from "kubernetes-types/core/v1";
import { apiErrorCode, apiStatusMessage, type KubeClient } from "../kube";
import { EventSinkError, type EventPatch, type EventSink } from "./types";

export class ApiEventSink implements EventSink {
  constructor(private readonly client: Pick<KubeClient, "postJson" | "core">) {}

  async create(event: Event): Promise<Event> {
    const ns = event.metadata.namespace ?? "default";
    try {
      return await this.client.postJson<Event>(`/api/v1/namespaces/${encodeURIComponent(ns)}/events`, event);
    } catch (err) {
      throw classify(err);
    }
  }

  async patch(event: Event, patch: EventPatch): Promise<Event> {
    const ns = event.metadata.namespace ?? "default";
    try {
      const answer = await this.client.core.patchNamespacedEvent(
        { name: event.metadata.name ?? "", namespace: ns, body: patch },
        setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
      );
      // The generated client turns timestamps into Dates; the correlator keeps the API's strings.
      return JSON.parse(JSON.stringify(answer)) as Event;
    } catch (err) {
      throw classify(err);
    }
  }
}

function classify(err: unknown): EventSinkError {
  const code = apiErrorCode(err);
  if (code === undefined) return new EventSinkError("transport", apiStatusMessage(err));
  if (code === 404) return new EventSinkError("notFound", apiStatusMessage(err));
  return new EventSinkError("rejected", `${code}: ${apiStatusMessage(err)}`);
}
