// src/gc owns the kubelet's garbage collectors: container GC (dead containers, sandboxes and log folders
// of pods that are gone, container-gc.ts) and image GC (unused images when the image filesystem fills,
// image-gc-manager.ts). Their deleteAll entry points are what the eviction manager reclaims through.
export {
  CONTAINER_GC_PERIOD_MS,
  ContainerGC,
  DEFAULT_CONTAINER_GC_POLICY,
  evictableContainers,
  parsePodLogsDirectoryName,
  planContainerEviction,
  planSandboxEviction,
  podUIDFromLogsDirectory,
  type ContainerGCer,
  type ContainerGCOptions,
  type ContainerGCPlan,
  type ContainerGCPolicy,
  type ContainerGCRuntime,
  type DeadContainer,
  type EvictUnits,
  type PodLogsDirectoryName,
  type PodStateProvider,
} from "./container-gc";
export {
  CriImageFsStats,
  DEFAULT_IMAGE_GC_POLICY,
  IMAGE_GC_PERIOD_MS,
  ImageGCManager,
  imageGCCandidates,
  type GCEvent,
  type ImageFsStatsProvider,
  type ImageGC,
  type ImageGCManagerOptions,
  type ImageGCPolicy,
  type ImageGCRuntime,
  type ImageRecord,
} from "./image-gc-manager";
export { binaryQuantity, CONTAINER_LOG_SETTINGS, GC_SETTINGS, resolveGarbageCollection, type GarbageCollectionConfig } from "./settings";
