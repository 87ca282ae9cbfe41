// Annotations the agent puts on CRI containers beside the kubelet's labels (src/cri/labels.ts), with
// the kubelet's names, so that a restarted agent can read back what it created (restart count, the
// spec hash a running container was made from) and other CRI tools see the same as with a kubelet.
// The keys live in src/status (container-annotations.ts), which reads them back for the pod status.
import { createHash } from "node:crypto";
import type { Container } from "kubernetes-types/core/v1";
import { stableStringify } from "../manifest";

export {
  CONTAINER_HASH,
  CONTAINER_RESTART_COUNT,
  CONTAINER_TERMINATION_MESSAGE_PATH,
  CONTAINER_TERMINATION_MESSAGE_POLICY,
  POD_TERMINATION_GRACE_PERIOD,
  CONTAINER_PRESTOP_HANDLER,
  CONTAINER_TYPE,
} from "../status";

/**
 * The hash of a container's spec. A running container whose hash differs from its spec's is
 * replaced, as the kubelet does ("Container spec hash changed"). Probes and resources are left out,
 * as the kubelet leaves out the fields it can change in place.
 */
export function containerHash(c: Container): string {
  const { livenessProbe: _l, readinessProbe: _r, startupProbe: _s, resources: _res, ...rest } = c;
  return createHash("sha256").update(stableStringify(rest)).digest("hex").slice(0, 16);
}
