// A pod's QoS class as Kubernetes computes it (k/k@1.24.1 pkg/apis/core/v1/helper/qos/qos.go
// GetPodQOS): only cpu and memory count, and only quantities above zero. The requests and the limits
// of every container (init ones included) are summed per resource; the pod is
//   BestEffort  when nothing was summed at all,
//   Guaranteed  when every container has both a cpu and a memory limit and the summed requests equal
//               the summed limits, resource by resource,
//   Burstable   otherwise.
// A request left unset defaults to its limit (SetDefaults_Pod, src/api/defaults.ts): it is applied
// here again, per container and key, so that a pod that skipped defaulting is classed as the API
// server would have classed it.
import type { Container, Pod } from "kubernetes-types/core/v1";
import { tryParseQuantity } from "../api";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

/** The resources a QoS class is computed from (isSupportedQoSComputeResource). */
const QOS_RESOURCES = ["cpu", "memory"] as const;

/** A quantity in the unit the sums are exact in: milli-CPU for cpu, bytes for memory; 0 when unset or unparsable. */
function amount(resource: (typeof QOS_RESOURCES)[number], q: string | number | undefined): number {
  if (q === undefined) return 0;
  const v = tryParseQuantity(q);
  if (v instanceof Error) return 0;
  return resource === "cpu" ? v.milli() : v.value();
}

function allContainers(pod: Pod): Container[] {
  return [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
}

export function qosClass(pod: Pod): QOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const c of allContainers(pod)) {
    const lim = c.resources?.limits ?? {};
    const req = c.resources?.requests ?? {};
    const limitsFound = new Set<string>();
    for (const r of QOS_RESOURCES) {
      const request = amount(r, req[r] ?? lim[r]);
      if (request > 0) requests.set(r, (requests.get(r) ?? 0) + request);
      const limit = amount(r, lim[r]);
      if (limit > 0) {
        limitsFound.add(r);
        limits.set(r, (limits.get(r) ?? 0) + limit);
      }
    }
    if (!limitsFound.has("cpu") || !limitsFound.has("memory")) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [r, req] of requests) {
      if (limits.get(r) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
