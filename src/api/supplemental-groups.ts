// The groups a pod's processes get besides their own (securityContext.fsGroup, supplementalGroups and
// the 1.31 supplementalGroupsPolicy, which kubernetes-types 1.30 does not declare): what the kubelet
// passes the runtime in the sandbox's and each container's security context.
import type { Pod } from "kubernetes-types/core/v1";

/** The values of securityContext.supplementalGroupsPolicy (validation's set, sorted). */
export const SUPPLEMENTAL_GROUPS_POLICIES = ["Merge", "Strict"] as const;
/** The values of securityContext.fsGroupChangePolicy (validation's set, sorted). */
export const FS_GROUP_CHANGE_POLICIES = ["Always", "OnRootMismatch"] as const;

/** spec.securityContext.supplementalGroupsPolicy as written (undefined: Merge). */
export function podSupplementalGroupsPolicy(pod: Pod): string | undefined {
  const sc = pod.spec?.securityContext as { supplementalGroupsPolicy?: string } | undefined;
  return sc?.supplementalGroupsPolicy ?? undefined;
}

/**
 * The supplementary groups of the pod's processes, in the kubelet's order (determineEffectiveSecurityContext
 * and generatePodSandboxLinuxConfig): fsGroup first, then supplementalGroups. The fsGroup is what gives
 * a non-root process access to the volumes the kubelet made group-owned by it.
 */
export function podSupplementalGroups(pod: Pod): number[] {
  const sc = pod.spec?.securityContext;
  return [...(sc?.fsGroup !== undefined && sc.fsGroup !== null ? [sc.fsGroup] : []), ...(sc?.supplementalGroups ?? [])];
}
