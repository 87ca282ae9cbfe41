// src/scheduler owns the scheduling framework (extension points, statuses, CycleState, profiles), the
// queue, the cache and snapshot, the default plugins and the explanations; it reaches nodes only through
// ClusterClient. The cluster mode (in-cluster.ts) is loaded on its own, by `schedule --kubeconfig`.
export { defaultConfig, defaultProfile, parseSchedulerConfig, profilesFor, ConfigError, DEFAULT_MULTIPOINT, DEFAULT_SCHEDULER_NAME } from "./config/config";
export type { SchedulerConfig, Profile, PluginsConfig, ExtensionPoint } from "./config/types";
export { Scheduler, type SchedulerOptions, type SchedulerLog } from "./scheduler";
export { scheduleOnce, type PodReport, type OnceOptions, type FinalOutcome } from "./once";
export { placePods, type PlaceOptions, type PlaceResult } from "./place";
export { runWatch, type WatchOptions } from "./watch";
export { InMemoryCluster } from "./cluster";
export type { AttemptResult, AttemptOutcome } from "./framework/result";
export type { AttemptExplanation } from "./framework/explain";
export { AgentClient, AgentCluster, AgentError, podForAgent, type ClusterEvents } from "./sources/agents";
export { PendingDir, BOUND_SUBDIR } from "./sources/pending-dir";
export { collectObjects, parseObjects, preparePod, readPaths, InputError, type ClusterObjects } from "./sources/input";
export { formatReports, formatAttempt, type OutputFormat } from "./report";
export { UNSUPPORTED_PLUGINS } from "./plugins/names";
export { seededRandom } from "../util";
export { runUntilIdle } from "./once";
export { findUntoleratedTaint, RequiredNodeAffinity } from "./model/labels";
export { NodeInfo } from "./model/node-info";
export { PodInfo } from "./model/pod-info";
export { podRequests } from "./model/resource";
export { Names } from "./plugins/names";
export { ERR_REASON_POD } from "./plugins/node-affinity";
export { ERR_REASON_NODE_NAME } from "./plugins/node-name";
export { ERR_REASON_PORTS } from "./plugins/node-ports";
export { fitsRequest, type InsufficientResource } from "./plugins/noderesources/fit";
export { ERR_REASON_NOT_MATCH } from "./plugins/taint-toleration";
export { loadInClusterScheduler } from "./lazy";
