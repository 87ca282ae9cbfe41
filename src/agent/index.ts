// src/agent owns the sync machinery — the syncLoop, the Agent that handles its events, one worker per pod
// (PodWorkers), what a sync must do (computePodActions) and doing it (PodSyncer) — and the node itself:
// AgentConfig assembled from every subsystem's setting rows, and its start-up in phases (node-*.ts).
export { Agent, SHUTDOWN_GRACE_MS, type AgentHooks, type AgentOptions } from "./agent";
export { SyncLoop, type SyncHandler, type SyncLoopEvent, type SyncLoopOptions } from "./sync-loop";
export { Backoff } from "./backoff";
export { computePodActions, neverRan, type PodActions } from "./pod-actions";
export { PodSyncer, type SyncResult, type SyncRuntime } from "./pod-sync";
export {
  PodWorkerPool,
  SYNC_ERROR_BACKOFF_MS,
  type EvictOptions,
  type PodWorkers,
  type PodWorkerPoolOptions,
  type PodWorkerState,
  type PodWorkerView,
  type PodSyncActions,
  type UpdatePodOptions,
  type UpdateType,
  type WorkerPhase,
} from "./pod-workers";
export type { RuntimeConfigOptions } from "./runtime-config";
export { AGENT_DEFAULTS, AGENT_SETTINGS, resolveAgentConfig, SETTING_GROUPS, type AgentConfig, type AgentFlags, type SettingGroup } from "./agent-config";
export { settingsMarkdown } from "./settings-doc";
export { ROOT_DIR_SETTING } from "./agent-settings";
export { readKubeletConfigText } from "./kubelet-config-file";
export { runNode } from "./node";
export { loadNode } from "./lazy";
