// A pod's resources as the sum of its containers', the way component-helpers' PodRequests and
// PodLimits add them up with native sidecars (KEP-753): one formula for the scheduler, admission
// (src/scheduler/model/resource.ts podRequests) and the pod cgroups (src/cm/resource-config.ts).
import type { Container, Pod } from "kubernetes-types/core/v1";

/** Amounts by resource name (CPU in millicores, the rest in units). */
export type ResourceAmounts = Map<string, number>;

function addInto(into: ResourceAmounts, r: ResourceAmounts): void {
  for (const [k, v] of r) into.set(k, (into.get(k) ?? 0) + v);
}

function maxInto(into: ResourceAmounts, r: ResourceAmounts): void {
  for (const [k, v] of r) {
    const cur = into.get(k);
    if (cur === undefined || v > cur) into.set(k, v);
  }
}

/**
 * The pod's aggregate of a per-container amount, without overhead: the app containers and the
 * sidecars (init containers with restartPolicy Always, which run beside everything started after
 * them) summed; each regular init container, with the sidecars started before it, taken instead
 * where that is larger (init containers run one at a time).
 */
export function aggregateContainers(pod: Pod, amounts: (c: Container) => ResourceAmounts): ResourceAmounts {
  const sum: ResourceAmounts = new Map();
  for (const c of pod.spec?.containers ?? []) addInto(sum, amounts(c));
  const sidecars: ResourceAmounts = new Map();
  const initPeak: ResourceAmounts = new Map();
  for (const c of pod.spec?.initContainers ?? []) {
    const r = amounts(c);
    if (c.restartPolicy === "Always") {
      addInto(sum, r);
      addInto(sidecars, r);
      maxInto(initPeak, sidecars);
    } else {
      addInto(r, sidecars);
      maxInto(initPeak, r);
    }
  }
  maxInto(sum, initPeak);
  return sum;
}
