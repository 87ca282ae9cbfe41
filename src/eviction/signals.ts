// Eviction signals: what the eviction manager watches, and how each is observed in a Summary
// (k/k@1.24.1 pkg/kubelet/eviction/api/types.go for the names, helpers.go makeSignalObservations,
// signalToNodeCondition, signalToResource). An observation is the signal's available amount and the
// capacity a percentage threshold is taken of, both in the signal's unit (bytes, inodes, pids).
import type { Pod } from "kubernetes-types/core/v1";
import type { FsStats, PodStats, Summary } from "../stats";

export const SIGNALS = [
  "memory.available",
  "allocatableMemory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "pid.available",
] as const;
export type Signal = (typeof SIGNALS)[number];

export function isSignal(s: string): s is Signal {
  return (SIGNALS as readonly string[]).includes(s);
}

/** The node conditions the eviction manager owns. */
export type PressureCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";
export const PRESSURE_CONDITIONS: readonly PressureCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"];

/** signalToNodeCondition: the condition a met threshold of the signal makes true. */
export const SIGNAL_CONDITION: Readonly<Record<Signal, PressureCondition>> = {
  "memory.available": "MemoryPressure",
  "allocatableMemory.available": "MemoryPressure",
  "nodefs.available": "DiskPressure",
  "nodefs.inodesFree": "DiskPressure",
  "imagefs.available": "DiskPressure",
  "imagefs.inodesFree": "DiskPressure",
  "pid.available": "PIDPressure",
};

/** The resource a signal starves: it names the eviction message's `low on resource: <r>`. */
export type StarvedResource = "memory" | "ephemeral-storage" | "inodes" | "pids";

/** signalToResource. */
export const SIGNAL_RESOURCE: Readonly<Record<Signal, StarvedResource>> = {
  "memory.available": "memory",
  "allocatableMemory.available": "memory",
  "nodefs.available": "ephemeral-storage",
  "nodefs.inodesFree": "inodes",
  "imagefs.available": "ephemeral-storage",
  "imagefs.inodesFree": "inodes",
  "pid.available": "pids",
};

export interface SignalObservation {
  available: number;
  capacity: number;
  /** When the stats were taken (the Summary's time of that figure), in ms since the epoch. */
  time: number;
}

export type Observations = Partial<Record<Signal, SignalObservation>>;

/** Pod stats by pod UID: the kubelet's statsFunc. */
export type PodStatsLookup = (pod: Pod) => PodStats | undefined;

function fsObservations(fs: FsStats | undefined, bytes: Signal, inodes: Signal, out: Observations): void {
  if (!fs) return;
  const time = Date.parse(fs.time);
  if (fs.availableBytes !== undefined && fs.capacityBytes !== undefined) out[bytes] = { available: fs.availableBytes, capacity: fs.capacityBytes, time };
  if (fs.inodesFree !== undefined && fs.inodes !== undefined) out[inodes] = { available: fs.inodesFree, capacity: fs.inodes, time };
}

/**
 * makeSignalObservations: each signal the summary has figures for. memory.available is the node's
 * availableBytes (capacity − working set of the root cgroup), its capacity available + working set;
 * allocatableMemory.available the same of the "pods" system container; nodefs the filesystem of the
 * root dir; imagefs the runtime's image filesystem; pid.available maxpid − curproc of maxpid.
 */
export function makeSignalObservations(summary: Summary): { observations: Observations; podStats: PodStatsLookup } {
  const out: Observations = {};
  const { node } = summary;
  const mem = node.memory;
  if (mem?.availableBytes !== undefined && mem.workingSetBytes !== undefined) {
    out["memory.available"] = { available: mem.availableBytes, capacity: mem.availableBytes + mem.workingSetBytes, time: Date.parse(mem.time) };
  }
  const pods = node.systemContainers?.find((c) => c.name === "pods")?.memory;
  if (pods?.availableBytes !== undefined && pods.workingSetBytes !== undefined) {
    out["allocatableMemory.available"] = { available: pods.availableBytes, capacity: pods.availableBytes + pods.workingSetBytes, time: Date.parse(pods.time) };
  }
  fsObservations(node.fs, "nodefs.available", "nodefs.inodesFree", out);
  fsObservations(node.runtime?.imageFs, "imagefs.available", "imagefs.inodesFree", out);
  const rl = node.rlimit;
  if (rl?.maxpid !== undefined && rl.curproc !== undefined) {
    out["pid.available"] = { available: rl.maxpid - rl.curproc, capacity: rl.maxpid, time: Date.parse(rl.time) };
  }
  const byUid = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
  return { observations: out, podStats: (pod) => byUid.get(pod.metadata?.uid ?? "") };
}
