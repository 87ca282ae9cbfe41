// The eviction manager's admit handler, first in the node's admission chain (k/k@1.24.1
// pkg/kubelet/eviction/eviction_manager.go Admit): under no pressure every pod is admitted; a
// critical pod (priority ≥ system-cluster-critical) always; under MemoryPressure alone, every pod but
// a BestEffort one, and a BestEffort one too if it tolerates node.kubernetes.io/memory-pressure:NoSchedule
// (the taint the node lifecycle controller puts on such a node); under any other pressure, none.
// Critical is src/api isCriticalPod: a priority ≥ system-cluster-critical's (a built-in class named
// without a priority counts), and in a cluster every static and mirror pod.
// A refused pod gets reason Evicted and `The node had condition: [<conditions>]. `.
//
// The kubelet admits every static pod under pressure (kubetypes.IsCriticalPod: it could not admit one
// later), and so does the agent in a cluster; standalone, every pod the agent runs is static by that
// rule, which would turn the check off, so there — as for eviction itself (local-storage.ts) — file,
// URL and pushed pods are judged by their priority like API pods.
import type { Pod, Toleration } from "kubernetes-types/core/v1";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "../admission";
import { isCriticalPod } from "../api";
import { EVICTED_REASON } from "./local-storage";
import type { PressureCondition } from "./signals";

/** v1.TaintNodeMemoryPressure. */
export const MEMORY_PRESSURE_TAINT_KEY = "node.kubernetes.io/memory-pressure";

/** nodeConditionMessageFmt, the conditions printed as Go prints a slice: "[MemoryPressure DiskPressure]". */
export function nodeConditionMessage(conditions: Iterable<PressureCondition>): string {
  return `The node had condition: [${[...conditions].join(" ")}]. `;
}

/** v1qos.GetPodQOS == BestEffort: no container (init ones included) requests or limits cpu or memory. */
function isBestEffort(pod: Pod): boolean {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return containers.every((c) => ["cpu", "memory"].every((r) => c.resources?.requests?.[r] === undefined && c.resources?.limits?.[r] === undefined));
}

/** TolerationsTolerateTaint for the memory-pressure NoSchedule taint (no value). */
function toleratesMemoryPressure(tolerations: readonly Toleration[] | undefined): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== "NoSchedule") return false;
    if (t.operator === "Exists") return !t.key || t.key === MEMORY_PRESSURE_TAINT_KEY;
    return t.key === MEMORY_PRESSURE_TAINT_KEY && (t.value ?? "") === "";
  });
}

export class EvictionAdmitHandler implements PodAdmitHandler {
  /**
   * `pressure`: the conditions the eviction manager reports now (EvictionManager.pressure); `cluster`:
   * the node belongs to a cluster (its static pods are critical).
   */
  constructor(
    private readonly pressure: () => ReadonlySet<PressureCondition>,
    private readonly o: { cluster?: boolean } = {},
  ) {}

  admit({ pod }: PodAdmitAttributes): PodAdmitResult {
    const conditions = this.pressure();
    if (conditions.size === 0) return { admit: true };
    if (isCriticalPod(pod, { cluster: this.o.cluster ?? false })) return { admit: true };
    if (conditions.size === 1 && conditions.has("MemoryPressure")) {
      if (!isBestEffort(pod) || toleratesMemoryPressure(pod.spec?.tolerations)) return { admit: true };
    }
    return { admit: false, reason: EVICTED_REASON, message: nodeConditionMessage(conditions) };
  }
}
