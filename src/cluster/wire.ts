// Calling the API from the heartbeat loops. Objects are handled in their JSON wire form: client-node's
// generated clients hand back model classes (Date objects for times, MicroTime as given), while the status
// diffs here compare and patch the JSON the API server speaks (the kubernetes-types shapes), so every
// answer is turned back into it. Every call has a deadline, as the kubelet's heartbeat client has: a hung
// connection must not stall the lease past its duration.
import { Observable, type ConfigurationOptions, type ObservableMiddleware } from "@kubernetes/client-node";
import { ObjectSerializer } from "@kubernetes/client-node/dist/gen/models/ObjectSerializer.js";

/**
 * The kubelet's heartbeat client timeout: nodeStatusUpdateFrequency, capped at the lease duration
 * (cmd/kubelet/app/server.go), i.e. 10 s with the defaults.
 */
export const HEARTBEAT_REQUEST_TIMEOUT_MS = 10_000;

/** Call options that abort the request after ms (real time: it bounds the network, not the schedule). */
export function withTimeout(
  ms: number = HEARTBEAT_REQUEST_TIMEOUT_MS,
  options: ConfigurationOptions<ObservableMiddleware> = {},
): ConfigurationOptions<ObservableMiddleware> {
  // Shaped like client-node's own setHeaderOptions middleware, so the two chain.
  const deadline: ObservableMiddleware = {
    pre: (request) => {
      request.setSignal(AbortSignal.timeout(ms));
      return new Observable(Promise.resolve(request));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { ...options, middleware: [...(options.middleware ?? []), deadline], middlewareMergeStrategy: "append" };
}

/** A client-node model instance (e.g. a V1Node) → its JSON form, typed with kubernetes-types. */
export function toWire<T>(model: unknown, type: "V1Node" | "V1Lease"): T {
  return JSON.parse(JSON.stringify(ObjectSerializer.serialize(model, type, ""))) as T;
}

/**
 * A wire-form object as a request body of the generated clients. Their serializer passes strings through
 * where it expects Dates, so the JSON goes out as it is; only the static types differ.
 */
export function asBody<Model>(wire: object): Model {
  return wire as Model;
}
