// The object references the kubelet records its events on (k/k@1.24.1 pkg/kubelet/container/ref.go
// GenerateContainerRef and the node's nodeRef in kubelet.go).
import type { Container, ObjectReference, Pod } from "kubernetes-types/core/v1";

/**
 * The pod's own reference (ref.GetReference of the pod the kubelet syncs). For a static pod that is
 * the pod from its manifest, with the static UID, not its mirror pod: the kubelet records there too,
 * so in the API a static pod's events name the mirror pod's namespace and name with the static UID.
 */
export function podReference(pod: Pod): ObjectReference {
  return {
    kind: "Pod",
    apiVersion: "v1",
    namespace: pod.metadata?.namespace ?? "default",
    name: pod.metadata?.name ?? "",
    uid: pod.metadata?.uid ?? "",
    ...(pod.metadata?.resourceVersion ? { resourceVersion: pod.metadata.resourceVersion } : {}),
  };
}

/** fieldPath of a container, as GenerateContainerRef's fieldPath(): spec.containers{name} or spec.initContainers{name}. */
export function containerFieldPath(pod: Pod, containerName: string): string {
  const init = (pod.spec?.initContainers ?? []).some((c) => c.name === containerName) && !(pod.spec?.containers ?? []).some((c) => c.name === containerName);
  if (init) return `spec.initContainers{${containerName}}`;
  return `spec.containers{${containerName}}`;
}

/** A container's reference: the pod's, with the container's fieldPath (GenerateContainerRef). */
export function containerReference(pod: Pod, container: Container | string): ObjectReference {
  const name = typeof container === "string" ? container : container.name;
  return { ...podReference(pod), fieldPath: containerFieldPath(pod, name) };
}

/**
 * The Node's reference as the kubelet makes it (kubelet.go nodeRef): kind Node, the name, and the
 * name again as UID (sic: the kubelet does not know the Node's UID when it makes it); no namespace,
 * so the event lands in "default".
 */
export function nodeReference(nodeName: string): ObjectReference {
  return { kind: "Node", name: nodeName, uid: nodeName, namespace: "" };
}
