// The labels the kubelet puts on CRI sandboxes and containers. nodeagent sets the same ones so that
// a restarted agent adopts what already runs, and crictl and other CRI tools show familiar names.
export const POD_NAME = "io.kubernetes.pod.name";
export const POD_NAMESPACE = "io.kubernetes.pod.namespace";
export const POD_UID = "io.kubernetes.pod.uid";
export const CONTAINER_NAME = "io.kubernetes.container.name";
/** The kubelet marks the containers it manages; sandboxes carry it as a label too. */
export const KUBERNETES_MANAGED = "io.kubernetes.container.managed";

/** The name the kubelet gives the sandbox in container-name labels and logs. */
export const SANDBOX_CONTAINER_NAME = "POD";

/** Labels identifying a pod's sandbox. */
export function sandboxLabels(pod: { name: string; namespace: string; uid: string }): Record<string, string> {
  return { [POD_NAME]: pod.name, [POD_NAMESPACE]: pod.namespace, [POD_UID]: pod.uid };
}

/** Labels identifying one container of a pod. */
export function containerLabels(pod: { name: string; namespace: string; uid: string }, containerName: string): Record<string, string> {
  return { ...sandboxLabels(pod), [CONTAINER_NAME]: containerName };
}
