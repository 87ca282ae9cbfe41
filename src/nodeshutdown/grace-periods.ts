// How a node shutdown's time is shared among the pods (k/k@1.24.1
// pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go migrateConfig, groupByPriority,
// periodRequested). The kubelet thinks in priority groups: shutdownGracePeriodByPodPriority is a list of
// {priority, shutdownGracePeriodSeconds}; the older pair shutdownGracePeriod / shutdownGracePeriodCriticalPods
// is turned into two groups, priority 0 with (grace − critical) and priority 2000000000
// (SystemCriticalPriority) with critical. A pod belongs to the group of the highest priority at or below
// its own (a pod below every group goes to the lowest, above every group to the highest), and the groups
// are stopped from the lowest priority up, each within its own budget. A pod's priority is src/api
// podPriority: spec.priority, else a built-in class it names (a kubeadm static pod names
// system-node-critical and carries no priority; the API server would have resolved it), else 0.
import type { Pod } from "kubernetes-types/core/v1";
import { podPriority, SYSTEM_CRITICAL_PRIORITY } from "../api";

/** One entry of shutdownGracePeriodByPodPriority (kubeletconfig.ShutdownGracePeriodByPodPriority). */
export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

/** A group of pods stopped together, within its budget. */
export interface PodShutdownGroup extends ShutdownGracePeriodByPodPriority {
  pods: Pod[];
}

/**
 * The kubelet's migrateConfig: shutdownGracePeriod and shutdownGracePeriodCriticalPods (ms) as the two
 * priority groups; none when the grace period is 0 (graceful shutdown off) or shorter than the
 * critical pods' part.
 */
export function migrateGracePeriods(gracePeriodMs: number, criticalPodsMs: number): ShutdownGracePeriodByPodPriority[] {
  if (gracePeriodMs <= 0) return [];
  const others = gracePeriodMs - criticalPodsMs;
  if (others < 0) return [];
  return [
    // scheduling.DefaultPriorityWhenNoDefaultClassExists
    { priority: 0, shutdownGracePeriodSeconds: Math.floor(others / 1000) },
    { priority: SYSTEM_CRITICAL_PRIORITY, shutdownGracePeriodSeconds: Math.floor((gracePeriodMs - others) / 1000) },
  ];
}

/** The groups ordered from the lowest priority, as the kubelet sorts them once at start. */
export function sortGroups(periods: readonly ShutdownGracePeriodByPodPriority[]): ShutdownGracePeriodByPodPriority[] {
  return [...periods].sort((a, b) => a.priority - b.priority);
}

/** The whole shutdown's length (periodRequested): the sum of the groups' budgets, in seconds. */
export function periodRequestedSeconds(periods: readonly ShutdownGracePeriodByPodPriority[]): number {
  return periods.reduce((sum, p) => sum + p.shutdownGracePeriodSeconds, 0);
}

/**
 * The kubelet's groupByPriority over groups sorted from the lowest priority: every group, in order,
 * with its pods (a group may be empty).
 */
export function groupByPriority(sorted: readonly ShutdownGracePeriodByPodPriority[], pods: readonly Pod[]): PodShutdownGroup[] {
  const groups: PodShutdownGroup[] = sorted.map((p) => ({ ...p, pods: [] }));
  if (groups.length === 0) return groups;
  for (const pod of pods) {
    const priority = podPriority(pod);
    // The highest group at or below the pod's priority; the lowest for a pod below them all.
    let index = 0;
    for (let i = 0; i < groups.length; i++) if (groups[i]!.priority <= priority) index = i;
    groups[index]!.pods.push(pod);
  }
  return groups;
}
