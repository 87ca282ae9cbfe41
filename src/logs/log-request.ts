// The client half of `nodeagent logs`: which container a request names when none is given (kubectl's
// rule), and the /containerLogs query for the command's flags. Pure, so the command stays thin.
import type { Pod } from "kubernetes-types/core/v1";
import type { PodLogOptions } from "./log-options";

/** kubectl's annotation naming the container `kubectl logs/exec` use by default (k8s.io/kubectl podcmd). */
export const DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container";

/** No container was named and the pod does not say which one: the message names the choices. */
export class ContainerChoiceError extends Error {
  override name = "ContainerChoiceError";
}

/**
 * The container to read when the command names none: the annotation's, when it names one of the pod's
 * containers; the only container of a pod that has one; otherwise a ContainerChoiceError worded as
 * kubectl's ("a container name must be specified for pod web, choose one of: [app sidecar] or one of
 * the init containers: [init]").
 */
export function defaultContainer(pod: Pod): string {
  const name = pod.metadata?.name ?? "";
  const containers = (pod.spec?.containers ?? []).map((c) => c.name);
  const inits = (pod.spec?.initContainers ?? []).map((c) => c.name);
  const annotated = pod.metadata?.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
  if (annotated && [...containers, ...inits].includes(annotated)) return annotated;
  if (containers.length === 1) return containers[0]!;
  const init = inits.length ? ` or one of the init containers: [${inits.join(" ")}]` : "";
  throw new ContainerChoiceError(`a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]${init}`);
}

/** The query string for GET /containerLogs (only what differs from the defaults). */
export function logsQuery(o: PodLogOptions): string {
  const q = new URLSearchParams();
  if (o.follow) q.set("follow", "true");
  if (o.previous) q.set("previous", "true");
  if (o.timestamps) q.set("timestamps", "true");
  if (o.tailLines !== undefined) q.set("tailLines", String(o.tailLines));
  if (o.limitBytes !== undefined) q.set("limitBytes", String(o.limitBytes));
  if (o.sinceSeconds !== undefined) q.set("sinceSeconds", String(o.sinceSeconds));
  if (o.sinceTime !== undefined) q.set("sinceTime", o.sinceTime);
  const s = q.toString();
  return s ? `?${s}` : "";
}
