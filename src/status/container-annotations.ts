// The annotation keys the agent puts on CRI containers (with the kubelet's names) and reads back: the
// restart count, the spec hash, the termination message settings, the preStop handler, the init mark.
// The agent writes them (src/agent/labels.ts); the status computation reads them.
export const CONTAINER_HASH = "io.kubernetes.container.hash";
export const CONTAINER_RESTART_COUNT = "io.kubernetes.container.restartCount";
export const CONTAINER_TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath";
export const CONTAINER_TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy";
export const POD_TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";
export const CONTAINER_PRESTOP_HANDLER = "io.kubernetes.container.preStopHandler";
/** Marks init containers, so a restarted agent tells them from app containers of the same pod. */
export const CONTAINER_TYPE = "io.kubernetes.container.type";
