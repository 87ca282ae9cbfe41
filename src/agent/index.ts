// src/agent owns the sync machinery: the syncLoop (sync-loop.ts) and the Agent that handles its events,
// one worker per pod (PodWorkers), what a sync must do (computePodActions) and doing it (PodSyncer),
// the backoffs, the record of the pods it evicted (evicted-pods.ts); and the node itself: AgentConfig
// (agent-config.ts, flags and a KubeletConfiguration checked before anything starts) and its wiring
// (node.ts and its phases, node-*.ts). It may import src/admission, src/config, src/eviction,
// src/volume, src/pleg, src/prober, src/status, src/cri, src/api, src/manifest and src/util, never
// cmd/; node-*.ts and agent-config.ts alone also import src/server and src/cluster.
export { Agent, SHUTDOWN_GRACE_MS, type AgentHooks, type AgentOptions } from "./agent";
export { SyncLoop, type SyncHandler, type SyncLoopEvent, type SyncLoopOptions } from "./sync-loop";
export { Backoff } from "./backoff";
export { computePodActions, neverRan, type PodActions } from "./pod-actions";
export { PodSyncer, type SyncResult, type SyncRuntime } from "./pod-sync";
export { PodWorkerPool, SYNC_ERROR_BACKOFF_MS, type EvictOptions, type PodWorkers, type PodWorkerPoolOptions, type PodWorkerState, type PodWorkerView, type PodSyncActions, type UpdatePodOptions, type UpdateType, type WorkerPhase } from "./pod-workers";
export type { RuntimeConfigOptions } from "./runtime-config";
export { AGENT_DEFAULTS, AGENT_SETTINGS, resolveAgentConfig, SETTING_GROUPS, type AgentConfig, type AgentFlags, type SettingGroup } from "./agent-config";
export { settingsMarkdown } from "./settings-doc";
