// The admission vocabulary, as the kubelet's pkg/kubelet/lifecycle: what a handler sees and answers.
import type { Pod } from "kubernetes-types/core/v1";

/** The pod to admit and the pods the node already runs (active: admitted, not finished). */
export interface PodAdmitAttributes {
  pod: Pod;
  otherPods: readonly Pod[];
  /**
   * Only asking, not admitting (the push source's check before it keeps a pod): a handler answers as
   * it would, and changes nothing (no pod is preempted). The kubelet has no such caller.
   */
  dryRun?: boolean;
}

/** The kubelet's PodAdmitResult: a refusal carries a CamelCase reason and a message for the pod status. */
export type PodAdmitResult = { admit: true } | { admit: false; reason: string; message: string };

export interface PodAdmitHandler {
  admit(attrs: PodAdmitAttributes): PodAdmitResult;
}

/** Runs the handlers in order; the first refusal wins, as in the kubelet's canAdmitPod. */
export function admitPod(handlers: readonly PodAdmitHandler[], attrs: PodAdmitAttributes): PodAdmitResult {
  for (const h of handlers) {
    const r = h.admit(attrs);
    if (!r.admit) return r;
  }
  return { admit: true };
}
