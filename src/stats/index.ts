// The stats provider: node, pod and container usage (cpu, memory, network, filesystems, pids) from CRI
// stats, cgroup files, /proc and statfs, in the Summary API's shape; served by /stats/summary and
// /metrics/resource, and read by eviction. One SummaryProvider per node.
export { SummaryProvider, VOLUME_STATS_AGG_PERIOD_MS, type StatsRuntime, type SummaryProviderOptions } from "./summary-provider";
export { renderResourceMetrics, RESOURCE_METRICS_CONTENT_TYPE } from "./resource-metrics";
export { WalkDiskUsage, WALK_YIELD_EVERY, type DiskUsage, type DiskUsageOptions, type FolderUsage } from "./disk-usage";
export type * from "./types";
