// The pod condition types the kubelet owns (kubetypes.PodConditionsByKubelet): the status computation
// sets them and the status manager writes them over the API's, leaving every other writer's conditions
// (readiness gates, DisruptionTarget, …) as they are.

export const KUBELET_CONDITIONS: ReadonlySet<string> = new Set([
  "PodScheduled",
  "Ready",
  "Initialized",
  "ContainersReady",
  "PodReadyToStartContainers",
  "PodResizePending",
  "PodResizeInProgress",
]);
