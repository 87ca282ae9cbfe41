// Annotations the agent puts on CRI containers beside the kubelet's labels (src/cri/labels.ts), with
// the kubelet's names, so that a restarted agent can read back what it created (restart count, the
// spec hash a running container was made from) and other CRI tools see the same as with a kubelet.
import { createHash } from "node:crypto";
import type { Container } from "kubernetes-types/core/v1";
import { stableStringify } from "../manifest/static-pod";

export const CONTAINER_HASH = "io.kubernetes.container.hash";
export const CONTAINER_RESTART_COUNT = "io.kubernetes.container.restartCount";
export const CONTAINER_TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath";
export const CONTAINER_TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy";
export const POD_TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";
export const CONTAINER_PRESTOP_HANDLER = "io.kubernetes.container.preStopHandler";
/** Marks init containers, so a restarted agent tells them from app containers of the same pod. */
export const CONTAINER_TYPE = "io.kubernetes.container.type";

/**
 * The hash of a container's spec. A running container whose hash differs from its spec's is
 * replaced, as the kubelet does ("Container spec hash changed"). Probes and resources are left out,
 * as the kubelet leaves out the fields it can change in place.
 */
export function containerHash(c: Container): string {
  const { livenessProbe: _l, readinessProbe: _r, startupProbe: _s, resources: _res, ...rest } = c;
  return createHash("sha256").update(stableStringify(rest)).digest("hex").slice(0, 16);
}
