// The Summary API's objects (stats/v1alpha1, k8s.io/kubelet/pkg/apis/stats/v1alpha1/types.go), as the
// kubelet's /stats/summary serves them in JSON: every number optional (the Go pointers with
// omitempty), times as RFC 3339 strings. No typings package carries them, so they are written here,
// field for field, with the JSON names the kubelet uses (note `ephemeral-storage` and `process_stats`).

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: RlimitStats;
}

export interface RlimitStats {
  time: string;
  /** The largest pid the node may use: min(pid_max, threads-max). */
  maxpid?: number;
  /** Processes (threads) that exist now. */
  curproc?: number;
}

export interface RuntimeStats {
  imageFs?: FsStats;
  containerFs?: FsStats;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  volume?: VolumeStats[];
  "ephemeral-storage"?: FsStats;
  process_stats?: ProcessStats;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface CPUStats {
  time: string;
  /** Average over the window since the previous sample, in billionths of a core. */
  usageNanoCores?: number;
  /** Cumulative cpu time, in nanoseconds. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  /** Usage minus inactive file pages: what the OOM killer and eviction look at. */
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** The default interface's counters inline, and every interface in `interfaces`. */
export interface NetworkStats extends Partial<InterfaceStats> {
  time: string;
  interfaces?: InterfaceStats[];
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface VolumeStats extends FsStats {
  name: string;
  pvcRef?: { name: string; namespace: string };
}

export interface ProcessStats {
  process_count?: number;
}
