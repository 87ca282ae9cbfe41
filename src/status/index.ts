// src/status owns the pods' status, as pkg/kubelet/status: the v1 PodStatus computed from the spec, the
// runtime and the last sync (computeApiPodStatus), the PodStatusManager seam statuses leave through, and
// the API server's StatusManager that patches them (loaded on demand: it brings the Kubernetes client).
export { computeApiPodStatus, readinessGateMessage, qosClass, type PodFailure, type StatusInputs, type Waiting } from "./api-status";
export { NO_STATUS_MANAGER, type PodStatusManager } from "./pod-status-manager";
export { containerKind, isInit, isSidecar, neverRan, type ContainerKind } from "./container-kinds";
export * from "./container-annotations";
export type { ApiPodEvent, ApiPodView } from "./api-pod-view";
export { podStatusPatch, wireJson, sameJson, type StatusPatch } from "./pod-status-patch";
export type { MirrorPodLookup, StatusManager, StatusManagerOptions } from "./status-manager";

export {
  POD_RESIZE_IN_PROGRESS,
  POD_RESIZE_PENDING,
  RESIZE_DEFERRED,
  RESIZE_ERROR,
  RESIZE_INFEASIBLE,
  ResizeConditions,
  bytesQuantity,
  milliCpuQuantity,
  type ResizeCondition,
  withResizeStatus,
  type ResizeStatusInputs,
} from "./resize-status";

export { loadStatusManager } from "./lazy";
