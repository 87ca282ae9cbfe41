// Facts about a Pod object that every layer asks: whether it has finished, and the placeholder the
// agent's API puts in place of a secret-bearing value for an unauthenticated reader.
import type { Pod } from "kubernetes-types/core/v1";

/** Succeeded and Failed are terminal: a pod in either never runs again (the kubelet's IsPodPhaseTerminal). */
export function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/** The pod's status says it has finished. */
export function isPodTerminal(pod: Pod): boolean {
  return isTerminalPhase(pod.status?.phase);
}

/**
 * What GET /pods shows an unauthenticated caller in place of a value that may be a secret (src/server
 * redact.ts). A client reading the agent's view (probe run) must never send it on as a real value.
 */
export const REDACTED = "<redacted: unauthenticated read>";
