// The Summary API's provider (the kubelet's stats.Provider behind /stats/summary, and what eviction
// and /metrics/resource read): one call gathers
//   node       cpu and memory of the root cgroup, the default interface's and every interface's
//              counters, nodefs (the filesystem of --root-dir), the runtime's imagefs (CRI
//              ImageFsInfo's usage on its mountpoint's statfs), rlimit, and the "pods" system
//              container (the cgroup every pod runs under: kubepods, src/cm);
//   each pod   the agent knows and the runtime has a ready sandbox for: cpu, memory, network and
//              process count of the sandbox (CRI ListPodSandboxStats, which reads the pod's cgroup,
//              as the kubelet's CRI provider does with PodAndContainerStatsFromCRI); its running
//              containers (CRI ListContainerStats: cpu, memory, the writable layer as rootfs) with
//              their log folders' usage; its volumes' usage (du of each folder the agent made); and
//              ephemeral-storage = rootfs + logs + emptyDir/configMap/secret/… volumes, as the kubelet
//              sums local ephemeral storage (pkg/kubelet/stats/helper.go calcEphemeralStorage).
// A container that restarted is reported once, its current instance (the kubelet drops terminated
// ones). usageNanoCores is the rate since the previous summary (CpuUsageCache). Folder usage (du)
// is cached for volumeStatsAggPeriod (1 min), as the kubelet's fsResourceAnalyzer, since a walk of a
// big volume is the one costly part.
import type { Pod } from "kubernetes-types/core/v1";
import { pluginKind, podRef, uidSegment, volumeDir } from "../api";
import { apiTime, type Clock, confinedPath, type Logger } from "../util";
import type { ContainerStats as CriContainerStats, ImageFsInfoResponse, PodSandbox, PodSandboxFilterInput, PodSandboxStats } from "../cri";
import { CpuUsageCache } from "./cpu-usage-cache";
import { WalkDiskUsage, type DiskUsage, type FolderUsage } from "./disk-usage";
import { fsStats, meminfo, readCgroupUsage, readNetwork, readPidLimits, SYSTEM_HOST_FILES, type CgroupUsage, type HostFiles } from "./host";
import type { ContainerStats, CPUStats, MemoryStats, NetworkStats, NodeStats, PodStats, Summary, VolumeStats } from "./types";

/** The CRI calls the provider makes: the CriClient on a node, a fake in tests. */
export interface StatsRuntime {
  listPodSandboxStats(): Promise<PodSandboxStats[]>;
  /**
   * For the fallback when ListPodSandboxStats fails as a whole: containerd 1.6 fails the list when any
   * sandbox is not ready ("sandbox container … is not in ready state"), as soon as one pod has stopped
   * (an evicted or finished pod). Then each ready sandbox is asked on its own (PodSandboxStats).
   */
  listPodSandbox?(filter?: PodSandboxFilterInput): Promise<PodSandbox[]>;
  podSandboxStats?(podSandboxId: string): Promise<PodSandboxStats | null>;
  listContainerStats(): Promise<CriContainerStats[]>;
  imageFsInfo(): Promise<ImageFsInfoResponse>;
}

export interface SummaryProviderOptions {
  nodeName: string;
  runtime: StatsRuntime;
  /** The pods the agent runs, with their statuses (the agent's pods()). */
  pods: () => Pod[];
  clock: Clock;
  log: Logger;
  /** --root-dir: its filesystem is nodefs. */
  rootDir: string;
  /** <root-dir>/pods: the pods' volume folders. */
  podsDir: string;
  /** The pods' log folders (/var/log/pods). */
  podLogsRoot: string;
  /** The cgroup every pod runs under (<cgroup-root>/kubepods, src/cm), reported as the "pods" system container. */
  cgroupRoot: string;
  files?: HostFiles;
  du?: DiskUsage;
  /** How long a folder's measured usage is reused (the kubelet's volumeStatsAggPeriod, 1 min). */
  duCacheMs?: number;
}

export const VOLUME_STATS_AGG_PERIOD_MS = 60_000;

const num = (v: { value: number } | null | undefined): number | undefined => (v ? v.value : undefined);

export class SummaryProvider {
  private readonly files: HostFiles;
  private readonly du: DiskUsage;
  private readonly cpu = new CpuUsageCache();
  private readonly duCache = new Map<string, { at: number; usage: FolderUsage | undefined }>();
  private saidOneByOne = false;

  constructor(private readonly o: SummaryProviderOptions) {
    this.files = o.files ?? SYSTEM_HOST_FILES;
    this.du = o.du ?? new WalkDiskUsage();
  }

  /** The whole summary; with onlyCpuAndMemory, node and pods carry cpu and memory alone (?only_cpu_and_memory=true). */
  async get(onlyCpuAndMemory = false): Promise<Summary> {
    const { clock } = this.o;
    const nowMs = clock.now();
    const time = apiTime(nowMs);
    this.sweepFolderUsage(nowMs);
    const [sandboxes, containers, imageFs] = await Promise.all([
      this.o.runtime.listPodSandboxStats().catch((err) => this.sandboxStatsOneByOne(err)),
      this.o.runtime.listContainerStats().catch((err) => this.failed("ListContainerStats", err, [] as CriContainerStats[])),
      onlyCpuAndMemory ? undefined : this.o.runtime.imageFsInfo().catch((err) => this.failed("ImageFsInfo", err, undefined)),
    ]);
    const node = this.nodeStats(nowMs, time, imageFs, onlyCpuAndMemory);
    const pods: PodStats[] = [];
    for (const pod of this.o.pods()) {
      const s = await this.podStats(pod, sandboxes, containers, nowMs, time, onlyCpuAndMemory);
      if (s) pods.push(s);
    }
    this.cpu.prune();
    return { node, pods };
  }

  /** The fallback of ListPodSandboxStats (see StatsRuntime): PodSandboxStats of each ready sandbox. */
  private async sandboxStatsOneByOne(listErr: unknown): Promise<PodSandboxStats[]> {
    const rt = this.o.runtime;
    if (!rt.listPodSandbox || !rt.podSandboxStats) return this.failed("ListPodSandboxStats", listErr, []);
    if (!this.saidOneByOne) {
      this.saidOneByOne = true;
      this.o.log.info("stats: CRI ListPodSandboxStats failed; asking each ready sandbox with PodSandboxStats while it does", { err: listErr });
    }
    try {
      const ready = await rt.listPodSandbox({ state: { state: "SANDBOX_READY" } });
      const stats = await Promise.all(ready.map((sb) => rt.podSandboxStats!(sb.id).catch(() => null)));
      return stats.filter((s): s is PodSandboxStats => s !== null);
    } catch (err) {
      return this.failed("ListPodSandbox", err, []);
    }
  }

  private failed<T>(call: string, err: unknown, fallback: T): T {
    this.o.log.warn("stats: CRI call failed", { call, err });
    return fallback;
  }

  private nodeStats(nowMs: number, time: string, imageFs: ImageFsInfoResponse | undefined, onlyCpuAndMemory: boolean): NodeStats {
    const { files } = this;
    const capacity = meminfo(files).total;
    const root = readCgroupUsage(files, "/");
    const node: NodeStats = {
      nodeName: this.o.nodeName,
      startTime: apiTime(this.bootTimeMs() ?? nowMs),
      cpu: this.cpuStats("node", root.cpuNanos, nowMs, time),
      memory: memoryStats(root, time, capacity),
    };
    const pods = readCgroupUsage(files, this.o.cgroupRoot);
    if (pods.cpuNanos !== undefined || pods.usageBytes !== undefined) {
      node.systemContainers = [
        {
          name: "pods",
          startTime: node.startTime,
          cpu: this.cpuStats("sys/pods", pods.cpuNanos, nowMs, time),
          memory: memoryStats(pods, time, pods.limitBytes ?? capacity),
        },
      ];
    }
    if (onlyCpuAndMemory) return node;
    const net = readNetwork(files);
    const def = net.interfaces.find((i) => i.name === net.defaultName);
    node.network = { time, ...def, interfaces: net.interfaces };
    node.fs = fsStats(files, this.o.rootDir, time);
    const img = imageFs?.imageFilesystems?.[0];
    if (img) {
      node.runtime = { imageFs: fsStats(files, img.fsId?.mountpoint || this.o.rootDir, time, { bytes: num(img.usedBytes), inodes: num(img.inodesUsed) }) };
    }
    const pids = readPidLimits(files);
    node.rlimit = { time, ...pids };
    return node;
  }

  /** The host's boot time from /proc/stat's btime: the node's startTime, as cAdvisor's root container. */
  private bootTimeMs(): number | undefined {
    const m = /^btime (\d+)$/m.exec(this.files.read("/proc/stat") ?? "");
    return m ? Number(m[1]) * 1000 : undefined;
  }

  private cpuStats(key: string, usageCoreNanoSeconds: number | undefined, nowMs: number, time: string, timestampNs?: number): CPUStats | undefined {
    if (usageCoreNanoSeconds === undefined) return undefined;
    const usageNanoCores = this.cpu.nanoCores(key, { timestampNs: timestampNs || nowMs * 1e6, usageCoreNanoSeconds });
    return { time, usageNanoCores, usageCoreNanoSeconds };
  }

  private async podStats(
    pod: Pod,
    sandboxes: PodSandboxStats[],
    containers: CriContainerStats[],
    nowMs: number,
    time: string,
    onlyCpuAndMemory: boolean,
  ): Promise<PodStats | undefined> {
    const ref = podRef(pod);
    const sandbox = sandboxes.find((s) => s.attributes?.metadata?.uid === ref.uid);
    if (!sandbox) return undefined;
    const status = pod.status;
    const stats: PodStats = {
      podRef: { name: ref.name, namespace: ref.namespace, uid: ref.uid },
      startTime: status?.startTime ?? time,
      containers: [],
    };
    // The current instance of each container: the ID its status names (restarts leave the old one listed).
    const current = new Map<string, { name: string; startedAt?: string }>();
    for (const cs of [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? [])]) {
      const id = cs.containerID?.replace(/^[a-z]+:\/\//, "");
      if (id && cs.state?.running) current.set(id, { name: cs.name, startedAt: cs.state.running.startedAt });
    }
    let rootfsBytes = 0;
    let logsBytes = 0;
    let inodes = 0;
    for (const c of containers) {
      const id = c.attributes?.id;
      const known = id ? current.get(id) : undefined;
      if (!id || !known) continue;
      const cs: ContainerStats = { name: known.name, startTime: known.startedAt ?? stats.startTime };
      cs.cpu = this.cpuStats(`c/${id}`, num(c.cpu?.usageCoreNanoSeconds), nowMs, time, c.cpu?.timestamp);
      cs.memory = criMemory(c.memory, time);
      if (!onlyCpuAndMemory) {
        const layer = c.writableLayer;
        const nodefs = fsStats(this.files, this.o.rootDir, time);
        cs.rootfs = {
          ...fsStats(this.files, layer?.fsId?.mountpoint || this.o.rootDir, time),
          usedBytes: num(layer?.usedBytes) ?? 0,
          inodesUsed: num(layer?.inodesUsed),
        };
        // The container's log folder, <podLogsRoot>/<ns>_<name>_<uid>/<container>, as the runtime config names it.
        const logs = await this.folderUsage(confinedPath(this.o.podLogsRoot, `${ref.namespace}_${ref.name}_${uidSegment(ref.uid)}`, known.name), nowMs);
        cs.logs = { ...nodefs, usedBytes: logs?.bytes ?? 0, inodesUsed: logs?.inodes };
        rootfsBytes += cs.rootfs.usedBytes ?? 0;
        logsBytes += cs.logs.usedBytes ?? 0;
        inodes += (cs.rootfs.inodesUsed ?? 0) + (cs.logs.inodesUsed ?? 0);
      }
      stats.containers.push(cs);
    }
    stats.containers.sort((a, b) => a.name.localeCompare(b.name));
    const linux = sandbox.linux;
    stats.cpu = this.cpuStats(`p/${ref.uid}`, num(linux?.cpu?.usageCoreNanoSeconds), nowMs, time, linux?.cpu?.timestamp);
    stats.memory = criMemory(linux?.memory, time);
    if (onlyCpuAndMemory) return stats;
    if (linux?.network) stats.network = criNetwork(linux.network, time);
    const count = num(linux?.process?.processCount);
    if (count !== undefined) stats.process_stats = { process_count: count };
    const volumes: VolumeStats[] = [];
    let volumeBytes = 0;
    for (const v of pod.spec?.volumes ?? []) {
      const kind = pluginKind(v);
      if (!kind) continue;
      let dir: string;
      try {
        dir = volumeDir(this.o.podsDir, ref.uid, kind, v.name);
      } catch {
        continue;
      }
      const used = await this.folderUsage(dir, nowMs);
      if (!used) continue;
      volumes.push({ ...fsStats(this.files, dir, time, { bytes: used.bytes, inodes: used.inodes }), name: v.name });
      // Memory-backed volumes are memory, not disk: the kubelet leaves them out of ephemeral storage.
      if (!(kind === "emptyDir" && v.emptyDir?.medium === "Memory") && kind !== "secret" && kind !== "projected" && kind !== "downwardAPI") {
        volumeBytes += used.bytes;
        inodes += used.inodes;
      }
    }
    if (volumes.length) stats.volume = volumes;
    stats["ephemeral-storage"] = { ...fsStats(this.files, this.o.rootDir, time), usedBytes: rootfsBytes + logsBytes + volumeBytes, inodesUsed: inodes };
    return stats;
  }

  /** Folders whose usage is remembered (tests: it returns to its baseline when pods go). */
  get cachedFolders(): number {
    return this.duCache.size;
  }

  /**
   * Forgets folders not measured for two aggregation periods: a folder still asked about is measured
   * again once a period, so these are the log and volume folders of pods that are gone. Their paths
   * carry the pod's UID: without this, every pod the node ever ran (the eviction manager asks for a
   * summary every 10 s) stayed in the map.
   */
  private sweepFolderUsage(nowMs: number): void {
    const keep = 2 * (this.o.duCacheMs ?? VOLUME_STATS_AGG_PERIOD_MS);
    for (const [path, e] of this.duCache) if (nowMs - e.at > keep) this.duCache.delete(path);
  }

  /** du of a folder, reused for duCacheMs. */
  private async folderUsage(path: string, nowMs: number): Promise<FolderUsage | undefined> {
    const hit = this.duCache.get(path);
    if (hit && nowMs - hit.at < (this.o.duCacheMs ?? VOLUME_STATS_AGG_PERIOD_MS)) return hit.usage;
    const usage = await this.du.usage(path).catch((err) => {
      this.o.log.warn("stats: measuring a folder failed", { path, err });
      return undefined;
    });
    this.duCache.set(path, { at: nowMs, usage });
    return usage;
  }
}

function memoryStats(u: CgroupUsage, time: string, limit: number | undefined): MemoryStats | undefined {
  if (u.usageBytes === undefined) return undefined;
  return {
    time,
    // Only a finite limit gives an available figure (the kubelet's helper.go).
    availableBytes: limit !== undefined && u.workingSetBytes !== undefined ? Math.max(0, limit - u.workingSetBytes) : undefined,
    usageBytes: u.usageBytes,
    workingSetBytes: u.workingSetBytes,
    rssBytes: u.rssBytes,
    pageFaults: u.pageFaults,
    majorPageFaults: u.majorPageFaults,
  };
}

function criMemory(m: CriContainerStats["memory"] | undefined, time: string): MemoryStats | undefined {
  if (!m) return undefined;
  return {
    time,
    availableBytes: num(m.availableBytes),
    usageBytes: num(m.usageBytes),
    workingSetBytes: num(m.workingSetBytes),
    rssBytes: num(m.rssBytes),
    pageFaults: num(m.pageFaults),
    majorPageFaults: num(m.majorPageFaults),
  };
}

function criNetwork(n: NonNullable<NonNullable<PodSandboxStats["linux"]>["network"]>, time: string): NetworkStats {
  const iface = (i: {
    name: string;
    rxBytes: { value: number } | null;
    rxErrors: { value: number } | null;
    txBytes: { value: number } | null;
    txErrors: { value: number } | null;
  }) => ({
    name: i.name,
    rxBytes: num(i.rxBytes),
    rxErrors: num(i.rxErrors),
    txBytes: num(i.txBytes),
    txErrors: num(i.txErrors),
  });
  return { time, ...(n.defaultInterface ? iface(n.defaultInterface) : {}), interfaces: n.interfaces.map(iface) };
}
