// Which container instance is which, read off the spec and the runtime's annotations: a native sidecar,
// an init, app or ephemeral container, an instance the agent's own start cut short. Both the sync (computePodActions) and
// the status computation ask these; they live here, below the agent, so the status need not import it.
import type { Container } from "kubernetes-types/core/v1";
import type { ContainerStatus } from "../cri";
import { CONTAINER_TYPE } from "./container-annotations";

/** A native sidecar: an init container with restartPolicy Always (KEP-753, the kubelet's IsRestartableInitContainer). */
export function isSidecar(c: Container): boolean {
  return c.restartPolicy === "Always";
}

export function isInit(c: ContainerStatus): boolean {
  return c.annotations[CONTAINER_TYPE] === "init";
}

/**
 * Which list of the spec an instance was started from: spec.initContainers, spec.containers or
 * spec.ephemeralContainers (the agent's io.kubernetes.container.type annotation; "app" without one).
 */
export type ContainerKind = "init" | "app" | "ephemeral";

export function containerKind(c: ContainerStatus): ContainerKind {
  const t = c.annotations[CONTAINER_TYPE];
  return t === "init" || t === "ephemeral" ? t : "app";
}

/**
 * An instance the runtime holds that never ran because the agent's own start of it was cut short: the
 * agent stopped between CreateContainer and StartContainer (state CREATED), or it died during
 * StartContainer. containerd then marks the container exited with reason StartError, exit code 128
 * and no start time, and its message says the call was cancelled: "context canceled", or, when the
 * cancellation killed the shim being started (seen with containerd 1.7), "failed to start shim:
 * start failed: …: signal: killed". Such an instance is not a failure of the container: it is
 * replaced without counting a restart, and no status shows it. A StartError for any other reason
 * (an executable not found) is the container's own and counts as the kubelet counts it.
 */
export function neverRan(c: ContainerStatus): boolean {
  if (c.startedAt) return false;
  if (c.state === "CONTAINER_CREATED") return true;
  return c.state === "CONTAINER_EXITED" && c.reason === "StartError" && CUT_SHORT.some((re) => re.test(c.message));
}

/** How containerd words a StartContainer whose caller went away. */
const CUT_SHORT: readonly RegExp[] = [/context canceled/, /failed to start shim: start failed: .*signal: killed/];
