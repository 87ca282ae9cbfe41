// The OOM score adjustment of a container by its pod's QoS class (k/k@1.24.1 pkg/kubelet/qos/policy.go
// GetContainerOOMScoreAdjust), sent as the CRI's LinuxContainerResources.oom_score_adj:
//   node-critical pods and Guaranteed   −997 (only the kubelet, −999, and the runtime, −998, are safer)
//   BestEffort                          1000 (killed first)
//   Burstable                           1000 − 1000 × memory request / memory capacity, kept within
//                                       [3, 999]: above every Guaranteed container, below BestEffort.
import type { Container, Pod } from "kubernetes-types/core/v1";
import { type CriticalPodOptions, isNodeCriticalPod, tryParseQuantity } from "../api";
import { qosClass } from "./qos";

export const GUARANTEED_OOM_SCORE_ADJ = -997;
export const BESTEFFORT_OOM_SCORE_ADJ = 1000;

/**
 * The adjustment of one container. A node-critical pod (src/api isNodeCriticalPod: critical, of the
 * system-node-critical class) gets Guaranteed's whatever its QoS; `critical` says whether the node is
 * in a cluster (where its static pods are critical).
 */
export function containerOomScoreAdj(pod: Pod, c: Container, memoryCapacityBytes: number, critical: CriticalPodOptions = { cluster: false }): number {
  if (isNodeCriticalPod(pod, critical)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = qosClass(pod);
  if (qos === "Guaranteed") return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === "BestEffort") return BESTEFFORT_OOM_SCORE_ADJ;
  const q = c.resources?.requests?.memory ?? c.resources?.limits?.memory;
  const parsed = q === undefined ? undefined : tryParseQuantity(q);
  const request = parsed === undefined || parsed instanceof Error ? 0 : parsed.value();
  // Integer arithmetic, as Go's int64 division.
  const adj = memoryCapacityBytes > 0 ? 1000 - Math.trunc((1000 * request) / memoryCapacityBytes) : 1000;
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BESTEFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}
