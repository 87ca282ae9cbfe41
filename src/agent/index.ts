// src/agent owns the sync machinery: the syncLoop (Agent), one worker per pod (PodWorkers), what a
// sync must do (computePodActions) and doing it (PodSyncer), the backoffs, and the pod status; and the
// node itself: AgentConfig (agent-config.ts, flags and a KubeletConfiguration checked before anything
// starts) and its wiring (node.ts). It may import src/config, src/pleg, src/cri, src/api, src/manifest
// and src/util, never cmd/; node.ts and agent-config.ts alone also import src/server and src/cluster.
export { Agent, type AgentHooks, type AgentOptions } from "./agent";
export { Backoff } from "./backoff";
export { computePodActions, type PodActions } from "./pod-actions";
export { PodSyncer, type SyncResult, type SyncRuntime } from "./pod-sync";
export { PodWorkers, type PodWorkerState, type PodSyncActions } from "./pod-workers";
export { podRef, fullName, type PodRef } from "./pod-ref";
export { computeApiPodStatus, qosClass, type StatusInputs, type Waiting } from "./status";
export type { RuntimeConfigOptions } from "./runtime-config";
