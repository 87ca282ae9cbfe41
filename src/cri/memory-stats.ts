// Stats of the in-memory runtime (memory-runtime.ts), shaped as containerd's CRI answers them: a
// running container uses a constant share of a CPU (its cumulative usage grows with its age) and a
// constant working set; the writable layer is a constant few kilobytes. A pod sandbox's stats sum its
// running containers, with a quiet eth0 and one process per container. Nothing is measured: these are
// numbers of the right shape for the summary API, eviction and resize checks to read.
import { containerMatches, type MemoryContainer, type MemorySandbox } from "./memory-records";
import type { ContainerStats, ContainerStatsFilterInput, PodSandboxStats } from "./types";

export interface MemoryStatsOptions {
  /** CPU a running container uses, in nanocores (1_000_000 = 1m). */
  cpuNanoCores: number;
  /** A running container's working set in bytes. */
  memoryBytes: number;
  /** The filesystem of the writable layers (the image filesystem's mountpoint). */
  mountpoint: string;
}

export const DEFAULT_MEMORY_STATS = { cpuNanoCores: 1_000_000, memoryBytes: 4 * 1024 * 1024 };

/** A container's writable layer: what it wrote in its rootfs. */
const WRITABLE_LAYER_BYTES = 16 * 1024;

const u64 = (value: number) => ({ value: Math.max(0, Math.round(value)) });

export function containerStatsOut(c: MemoryContainer, nowNs: number, o: MemoryStatsOptions): ContainerStats {
  const running = c.state === "CONTAINER_RUNNING";
  const limit = Number(c.resources?.memoryLimitInBytes ?? 0);
  return {
    attributes: { id: c.id, metadata: { name: c.name, attempt: c.attempt }, labels: c.labels, annotations: c.annotations },
    cpu: running ? { timestamp: nowNs, usageCoreNanoSeconds: u64(((nowNs - c.startedAt) / 1e9) * o.cpuNanoCores), usageNanoCores: u64(o.cpuNanoCores) } : null,
    memory: running
      ? {
          timestamp: nowNs,
          workingSetBytes: u64(o.memoryBytes),
          availableBytes: limit > 0 ? u64(limit - o.memoryBytes) : null,
          usageBytes: u64(o.memoryBytes),
          rssBytes: u64(o.memoryBytes / 2),
          pageFaults: u64(1000),
          majorPageFaults: u64(0),
        }
      : null,
    writableLayer: { timestamp: nowNs, fsId: { mountpoint: o.mountpoint }, usedBytes: u64(WRITABLE_LAYER_BYTES), inodesUsed: u64(8) },
    swap: running ? { timestamp: nowNs, swapAvailableBytes: u64(0), swapUsageBytes: u64(0) } : null,
  };
}

/** ListContainerStats: the running containers' (containerd asks its tasks, which only running containers have). */
export function listContainerStatsOut(
  all: Iterable<MemoryContainer>,
  filter: ContainerStatsFilterInput | undefined,
  nowNs: number,
  o: MemoryStatsOptions,
): ContainerStats[] {
  const out: ContainerStats[] = [];
  for (const c of all) if (c.state === "CONTAINER_RUNNING" && containerMatches(c, filter)) out.push(containerStatsOut(c, nowNs, o));
  return out;
}

/** A sandbox's stats over its running containers (`all`: the runtime's containers). */
export function podSandboxStatsOut(s: MemorySandbox, all: Iterable<MemoryContainer>, nowNs: number, o: MemoryStatsOptions): PodSandboxStats {
  const containers = listContainerStatsOut(all, { podSandboxId: s.id }, nowNs, o);
  let cpuCum = 0;
  let cpuRate = 0;
  let mem = 0;
  let running = 0;
  for (const c of containers) {
    if (!c.cpu || !c.memory) continue;
    running++;
    cpuCum += c.cpu.usageCoreNanoSeconds?.value ?? 0;
    cpuRate += c.cpu.usageNanoCores?.value ?? 0;
    mem += c.memory.workingSetBytes?.value ?? 0;
  }
  const eth0 = { name: "eth0", rxBytes: u64(0), rxErrors: u64(0), txBytes: u64(0), txErrors: u64(0) };
  return {
    attributes: { id: s.id, metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt }, labels: s.labels, annotations: s.annotations },
    linux: {
      cpu: { timestamp: nowNs, usageCoreNanoSeconds: u64(cpuCum), usageNanoCores: u64(cpuRate) },
      memory: {
        timestamp: nowNs,
        workingSetBytes: u64(mem),
        availableBytes: null,
        usageBytes: u64(mem),
        rssBytes: u64(mem / 2),
        pageFaults: u64(1000 * running),
        majorPageFaults: u64(0),
      },
      network: s.network === "NODE" ? null : { timestamp: nowNs, defaultInterface: eth0, interfaces: [] },
      process: { timestamp: nowNs, processCount: u64(running) },
      containers,
    },
    windows: null,
  };
}
