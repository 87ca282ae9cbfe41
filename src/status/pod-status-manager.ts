// The seam the agent reports pod statuses through (the kubelet's status.Manager): in a cluster the
// StatusManager (status-manager.ts, made by src/cluster's ClusterNode) writes them to the API server;
// standalone nobody needs them beyond GET /pods, which the agent computes itself: the default does nothing.
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";

export interface PodStatusManager {
  /** The status computed after a sync of the pod. */
  setPodStatus(pod: Pod, status: ApiPodStatus): void;
  /** Everything of the pod has stopped (deleted, removed from its source, rejected): its final status. */
  terminatePod(pod: Pod, status: ApiPodStatus): void;
  /** The pod is gone for good: its containers and sandboxes are removed. */
  removePod(pod: Pod): void;
}

/** Standalone: statuses live only in the agent. */
export const NO_STATUS_MANAGER: PodStatusManager = {
  setPodStatus() {},
  terminatePod() {},
  removePod() {},
};
