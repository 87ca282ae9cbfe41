// Node-level reclaim: what the eviction manager tries before it evicts a pod for a disk signal —
// removing every dead container, then every image no container uses (k/k@1.24.1
// pkg/kubelet/eviction/eviction_manager.go reclaimNodeLevelResources, helpers.go
// buildSignalToNodeReclaimFuncs; the kubelet's ContainerGC.DeleteAllUnusedContainers and
// ImageGCManager.DeleteUnusedImages). The garbage collectors themselves belong to the agent's GC
// (issue 17's image and container GC); these interfaces are the seam, with a no-op default so that a
// node without them evicts as if nothing could be reclaimed.
import type { Signal } from "./signals";

/** The image GC's eviction entry point: removes every image no container uses, whatever the thresholds (imageMinimumGCAge still holds, as in the kubelet's freeSpace). */
export interface ImageReclaimer {
  deleteUnusedImages(): Promise<unknown>;
}

/** The container GC's eviction entry point: its policy, plus every dead container of pods that have terminated (evictNonDeletedPods). */
export interface ContainerReclaimer {
  deleteAllUnusedContainers(): Promise<void>;
}

export interface NodeReclaim {
  images: ImageReclaimer;
  containers: ContainerReclaimer;
}

/** Nothing to reclaim: the default until the GC is wired in. */
export const NO_NODE_RECLAIM: NodeReclaim = {
  images: { deleteUnusedImages: async () => {} },
  containers: { deleteAllUnusedContainers: async () => {} },
};

/**
 * buildSignalToNodeReclaimFuncs: what is reclaimed for a signal, in order. With a dedicated image
 * filesystem, dead containers and images live there, so only the imagefs signals reclaim them (the
 * nodefs ones reclaim nothing); on one shared filesystem every disk signal reclaims both. Memory and
 * pid signals reclaim nothing at node level.
 */
export function nodeReclaimSteps(signal: Signal, reclaim: NodeReclaim, dedicatedImageFs: boolean): Array<() => Promise<unknown>> {
  const both = [() => reclaim.containers.deleteAllUnusedContainers(), () => reclaim.images.deleteUnusedImages()];
  switch (signal) {
    case "nodefs.available":
    case "nodefs.inodesFree":
      return dedicatedImageFs ? [] : both;
    case "imagefs.available":
    case "imagefs.inodesFree":
      return both;
    default:
      return [];
  }
}
