// src/eviction owns the kubelet's eviction manager. Today that is its local-storage part: a pod whose disk
// emptyDir outgrows its sizeLimit is evicted (local-storage.ts), usage measured by src/stats' DiskUsage;
// pressure signals, thresholds, ranking and node conditions (issue 17) belong here too. It may import
// src/api, src/stats, src/volume (the volume folders' layout) and src/util, never src/agent: the agent wires it in
// and acts for it through EvictionTarget.
export {
  LocalStorageEviction,
  emptyDirLimitMessage,
  EVICTED_REASON,
  EVICTION_MONITORING_PERIOD_MS,
  IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
  SYSTEM_CRITICAL_PRIORITY,
  type EvictionStatus,
  type EvictionTarget,
  type LocalStorageEvictionOptions,
} from "./local-storage";
// Garbage collection and log rotation (issue 17, node.md §7): image GC, container GC, container log
// rotation. They act on the runtime itself, so they also import src/cri (its client type, labels, errors).
export {
  CriImageFsStats,
  DEFAULT_IMAGE_GC_POLICY,
  IMAGE_GC_PERIOD_MS,
  ImageGCManager,
  type GCEvent,
  type ImageGC,
  type ImageGCPolicy,
} from "./image-gc-manager";
export {
  CONTAINER_GC_PERIOD_MS,
  ContainerGC,
  DEFAULT_CONTAINER_GC_POLICY,
  type ContainerGCer,
  type ContainerGCPolicy,
  type PodStateProvider,
} from "./container-gc";
export { ContainerLogManager, DEFAULT_CONTAINER_LOG_POLICY, LOG_MONITOR_PERIOD_MS, type ContainerLogPolicy } from "./container-log-manager";
