// What a MemoryRuntime (memory-runtime.ts) is made with: the runtime-wide defaults that a pod's
// hollow.nodeagent.io/ annotations (memory-behaviour.ts) override.
import type { Clock } from "../util";
import type { MemorySchedule } from "./memory-schedule";
import type { MemoryStatsOptions } from "./memory-stats";

export interface MemoryRuntimeOptions {
  clock: Clock;
  /** The schedule of timed things; pass one to share its clock timer among runtimes. Default: one of its own. */
  schedule?: MemorySchedule;
  /** How long RunPodSandbox and StartContainer take, on the clock (default 0: at once). */
  startLatencyMs?: number;
  /** Every container exits this long after it starts (default: runs until stopped). */
  exitAfterMs?: number;
  /** The code those exits have (default 0). */
  exitCode?: number;
  /** The pod IPs' range, until UpdateRuntimeConfig gives the node's (default 10.88.0.0/16, containerd's CNI default). */
  podCidr?: string;
  /** CRI Version's runtimeName (default "nodeagent-memory"): container IDs in pod statuses are `<name>://<id>`. */
  runtimeName?: string;
  /** CRI Version's runtimeVersion (default "1.7.0-memory"). */
  runtimeVersion?: string;
  /** What the runtime's endpoint is called (default "memory://"). */
  endpoint?: string;
  /** Each image's size in bytes (default 5 MB). */
  imageSizeBytes?: number;
  /**
   * The image filesystem's mountpoint ImageFsInfo and the writable layers report (default "/"). The
   * node statfs's it (imagefs stats, eviction's dedicated-imagefs check), so it must exist on the host.
   */
  imageFsMountpoint?: string;
  /** CPU and memory a running container reports (memory-stats.ts). */
  stats?: Partial<Omit<MemoryStatsOptions, "mountpoint">>;
}
