// src/eviction owns the kubelet's eviction manager: thresholds on the node's pressure signals, the
// Memory/Disk/PIDPressure conditions, node-level reclaim through the GC's seam, ranking and evicting one
// pod per cycle, the emptyDir sizeLimit check and the admit handler that refuses pods under pressure.
export {
  LocalStorageEviction,
  emptyDirLimitMessage,
  EVICTED_REASON,
  EVICTION_MONITORING_PERIOD_MS,
  IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
  type EvictionStatus,
  type EvictionTarget,
  type LocalStorageEvictionOptions,
} from "./local-storage";
export {
  EvictionManager,
  POD_CLEANUP_POLL_MS,
  POD_CLEANUP_TIMEOUT_MS,
  type EvictionManagerOptions,
  type LocalStorageCheck,
  type SummarySource,
} from "./eviction-manager";
export { EvictionAdmitHandler, MEMORY_PRESSURE_TAINT_KEY, nodeConditionMessage } from "./eviction-admit-handler";
export { NO_NODE_RECLAIM, type ContainerReclaimer, type ImageReclaimer, type NodeReclaim } from "./node-reclaim";
export { evictionMessage, rankFuncFor } from "./ranking";
export { makeSignalObservations, PRESSURE_CONDITIONS, SIGNALS, type Observations, type PressureCondition, type Signal } from "./signals";
export {
  DEFAULT_EVICTION_HARD,
  DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
  hardEvictionReservation,
  parseThresholds,
  type Threshold,
  type ThresholdValue,
} from "./thresholds";
export { EVICTION_SETTINGS, resolveEviction, resolveEvictionMonitoringPeriod, type EvictionSettings } from "./settings";
