// Which container instance's log a request reads: the kubelet's validateContainerLogStatus
// (k/k@1.24 pkg/kubelet/kubelet_pods.go), over the pod's v1 status, with its error messages word for
// word — `kubectl logs` users and scripts match on them ("is waiting to start", "previous terminated
// container … not found").
//
//   previous                   lastState.terminated's container, else an error;
//   running                    the running container;
//   terminated                 that container (or, when the next one never started, lastState's);
//   waiting after an exit      (CrashLoopBackOff) the exited container in lastState;
//   waiting, never started     an error that says why (ErrImagePull, ContainerCreating, …).
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1";

/** A container that has no log to read yet, or no previous instance: a 400 with this message. */
export class ContainerLogStatusError extends Error {
  override name = "ContainerLogStatusError";
}

/** Whether the pod's spec has a container (app, init or ephemeral) of that name: GetContainerSpec. */
export function hasContainer(pod: Pod, name: string): boolean {
  const spec = pod.spec;
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? []), ...(spec?.ephemeralContainers ?? [])].some((c) => c.name === name);
}

/** The runtime's ID in a status's "containerd://<id>" (ParseContainerID: the part after "://"). */
export function runtimeContainerId(apiId: string): string {
  const i = apiId.indexOf("://");
  return i < 0 ? apiId : apiId.slice(i + 3);
}

/**
 * The container ID ("containerd://…", as the status shows it) whose log to read, or a
 * ContainerLogStatusError with the kubelet's message.
 */
export function containerIdForLogs(pod: Pod, containerName: string, previous: boolean): string {
  const podName = pod.metadata?.name ?? "";
  const s = pod.status;
  const find = (list: ContainerStatus[] | undefined) => list?.find((c) => c.name === containerName);
  const cs = find(s?.containerStatuses) ?? find(s?.initContainerStatuses) ?? find(s?.ephemeralContainerStatuses);
  const q = (x: string) => JSON.stringify(x);
  if (!cs) throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is not available`);
  const last = cs.lastState?.terminated;
  const { waiting, running, terminated } = cs.state ?? {};
  if (previous) {
    if (!last?.containerID) throw new ContainerLogStatusError(`previous terminated container ${q(containerName)} in pod ${q(podName)} not found`);
    return last.containerID;
  }
  if (running) {
    if (cs.containerID) return cs.containerID;
  } else if (terminated) {
    // When the next instance did not start, terminated.containerID is empty: lastState has the log.
    if (terminated.containerID) return terminated.containerID;
    if (last?.containerID) return last.containerID;
    throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is terminated`);
  } else if (last) {
    if (!last.containerID) throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is terminated`);
    return last.containerID;
  } else if (waiting) {
    // The kubelet's words for the common pending failures (images.ErrImagePull, ErrImagePullBackOff).
    switch (waiting.reason) {
      case "ErrImagePull":
        throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: image can't be pulled`);
      case "ImagePullBackOff":
        throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`);
      default:
        throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is waiting to start: ${waiting.reason ?? ""}`);
    }
  }
  throw new ContainerLogStatusError(`container ${q(containerName)} in pod ${q(podName)} is waiting to start - no logs yet`);
}
