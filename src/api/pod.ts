// Facts about a Pod object that every layer asks: whether it has finished.
import type { Pod } from "kubernetes-types/core/v1";

/** Succeeded and Failed are terminal: a pod in either never runs again (the kubelet's IsPodPhaseTerminal). */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The pod's status says it has finished. */
export function isPodTerminal(pod: Pod): boolean {
  return isTerminalPhase(pod.status?.phase);
}
