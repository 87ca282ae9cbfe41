// observedGeneration (PodObservedGenerationTracking, GA and locked on since 1.35): which generation of
// the pod's spec a status was computed from. The API server sets metadata.generation to 1 at create and
// bumps it on every change of the spec (a new image, activeDeadlineSeconds, a resize) and at the first
// graceful deletion; the kubelet writes the generation of the pod it synced into status.observedGeneration
// (the status manager's SetPodStatus) and into each condition it owns (CalculatePodConditionObservedGeneration),
// so a controller can tell a status that has seen its change from one that has not.
import type { Pod, PodCondition, PodStatus } from "kubernetes-types/core/v1";

/** v1.PodStatus as 1.36 has it (kubernetes-types 1.30 lacks observedGeneration). */
export type PodStatusWithGeneration = Omit<PodStatus, "conditions"> & { observedGeneration?: number; conditions?: ConditionWithGeneration[] };
export type ConditionWithGeneration = PodCondition & { observedGeneration?: number };

/**
 * The generation a status computed from this pod has observed: its metadata.generation. Undefined
 * (the field left out) for a pod without one, a static pod read from a file: the API server then keeps
 * what its mirror pod's status had, as it does for any write that leaves the field unset.
 */
export function observedGeneration(pod: Pod): number | undefined {
  const g = pod.metadata?.generation;
  return g && g > 0 ? g : undefined;
}

/**
 * The status manager's guard (updateStatusInternal): a status computed from an older copy of the pod
 * than the one the API server's status has seen never takes observedGeneration back.
 */
export function keepNewerGeneration(next: PodStatusWithGeneration, old: PodStatusWithGeneration): void {
  if ((old.observedGeneration ?? 0) > (next.observedGeneration ?? 0)) next.observedGeneration = old.observedGeneration;
}
