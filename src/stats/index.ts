// src/stats owns the stats provider: node, pod and container usage (cpu, memory, network, filesystems,
// pids) from CRI stats, cgroup files, /proc and statfs, in the Summary API's shape; served by
// /stats/summary and /metrics/resource, and read by eviction.
export { VOLUME_STATS_AGG_PERIOD_MS, type SummaryProvider, type StatsRuntime, type SummaryProviderOptions } from "./summary-provider";
export { WalkDiskUsage, WALK_YIELD_EVERY, type DiskUsage, type DiskUsageOptions, type FolderUsage } from "./disk-usage";
export type * from "./types";
export { fsStats, type HostFiles, SYSTEM_HOST_FILES } from "./host";
export { loadSummaryProvider, loadResourceMetrics } from "./lazy";
