// The 1.36 predicate admit handler's check of spec.securityContext.supplementalGroupsPolicy
// (rejectPodAdmissionBasedOnSupplementalGroupsPolicy): SupplementalGroupsPolicy is GA and locked on, so
// a pod asking for Strict is refused on a node whose status.features does not say the runtime can do it
// — status.features.supplementalGroupsPolicy, which the node publishes from the runtime's CRI Status
// (src/nodestatus; containerd 1.6 and 1.7 report no features at all). Running such a pod as Merge would
// give its processes the image's /etc/group groups it asked to be without. Merge, or no policy, is
// admitted everywhere: it is what every runtime does.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { podSupplementalGroupsPolicy } from "../api";
import type { PodAdmitResult } from "./types";

/** lifecycle.SupplementalGroupsPolicyNotSupported. */
export const SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_REASON = "SupplementalGroupsPolicyNotSupported";

/** Whether the node says its runtime does SupplementalGroupsPolicy (absent: it does not). */
export function nodeSupportsSupplementalGroupsPolicy(node: Node): boolean {
  const features = (node.status as { features?: { supplementalGroupsPolicy?: boolean } } | undefined)?.features;
  return features?.supplementalGroupsPolicy === true;
}

/** The refusal of a Strict pod on a node that cannot do it, or undefined when the pod may run. */
export function supplementalGroupsPolicyRefusal(pod: Pod, node: Node): PodAdmitResult | undefined {
  if (podSupplementalGroupsPolicy(pod) !== "Strict" || nodeSupportsSupplementalGroupsPolicy(node)) return undefined;
  return {
    admit: false,
    reason: SUPPLEMENTAL_GROUPS_POLICY_NOT_SUPPORTED_REASON,
    message: "SupplementalGroupsPolicy=Strict is not supported in this node",
  };
}
