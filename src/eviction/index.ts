// src/eviction owns the kubelet's eviction manager (eviction-manager.ts): thresholds on the node's
// pressure signals (thresholds.ts, signals.ts) observed in the stats provider's Summary, the
// MemoryPressure/DiskPressure/PIDPressure node conditions, node-level reclaim through the GC's seam
// (node-reclaim.ts), ranking and evicting one pod per cycle (ranking.ts), the emptyDir sizeLimit check
// (local-storage.ts) and the admit handler that refuses pods under pressure (eviction-admit-handler.ts).
// It may import src/api, src/admission (its handler types), src/stats, src/volume (the volume folders'
// layout) and src/util, never src/agent: the agent wires it in and acts for it through EvictionTarget.
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
export { EvictionManager, POD_CLEANUP_POLL_MS, POD_CLEANUP_TIMEOUT_MS, type EvictionManagerOptions, type LocalStorageCheck, type SummarySource } from "./eviction-manager";
export { EvictionAdmitHandler, MEMORY_PRESSURE_TAINT_KEY, nodeConditionMessage } from "./eviction-admit-handler";
export { NO_NODE_RECLAIM, type ContainerReclaimer, type ImageReclaimer, type NodeReclaim } from "./node-reclaim";
export { evictionMessage, rankFuncFor } from "./ranking";
export { makeSignalObservations, PRESSURE_CONDITIONS, SIGNALS, type Observations, type PressureCondition, type Signal } from "./signals";
export { DEFAULT_EVICTION_HARD, DEFAULT_PRESSURE_TRANSITION_PERIOD_MS, hardEvictionReservation, parseThresholds, type Threshold, type ThresholdValue } from "./thresholds";
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
export { EVICTION_SETTINGS, resolveEviction, resolveEvictionMonitoringPeriod, type EvictionSettings } from "./settings";
// GC and log rotation rows (future homes: src/gc and src/logs).
export { binaryQuantity, CONTAINER_LOG_SETTINGS, GC_SETTINGS, resolveGarbageCollection, type GarbageCollectionConfig } from "./gc-settings";
