// src/scheduler owns the scheduling framework (extension points, statuses, CycleState, profiles from
// KubeSchedulerConfiguration), the scheduling queue, the cache and snapshot, the default plugins, and
// the explanations; it talks to nodes only through ClusterClient (in memory, agents over HTTP, or a
// cluster's API server). It may import src/api, src/manifest (decoding) and src/util — never
// src/agent. The cluster mode (in-cluster.ts, sources/kube-*.ts) also imports src/kube; it is not
// exported here, so that only `schedule --kubeconfig` loads @kubernetes/client-node (`await import`).
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
export { seededRandom } from "../util/random";
export { runUntilIdle } from "./once";
