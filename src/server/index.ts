// src/server owns the agent's HTTP API: health, pods, node, metrics and the push endpoint; it sees the
// agent only through AgentView. It may import src/cri (types, for the node's runtime facts) and src/util.
export type { AgentView, HealthCheck, PushResult } from "./types";
export { startAgentServer, createHandler, decodeManifest, statusObject, MAX_BODY_BYTES, type AgentServer, type AgentServerOptions, type ServerLog } from "./server";
export { AgentMetrics, runtimeCounts, CONTAINER_STATES, DEFAULT_BUCKETS, POD_STARTUP_BUCKETS, type ContainerStateLabel } from "./metrics";
export {
  buildNode, readHostFacts, parseLabels, parseTaint, parseTaints, formatBytes, formatMillicores,
  pickInternalIP, goArch, EVICTION_HARD_MEMORY_BYTES, EVICTION_HARD_NODEFS_FRACTION, type BuildNodeOptions, type HostFacts,
} from "./node-info";
