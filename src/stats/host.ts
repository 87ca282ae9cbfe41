// What the node's own figures are read from: the root cgroup (cpu, memory), /proc (network, pid
// limits, machine memory) and statfs (filesystems). The kubelet gets these from cAdvisor; the
// arithmetic below is cAdvisor's and the kubelet's, for both cgroup versions:
//   cpu time       v1 cpuacct/cpuacct.usage (ns); v2 cpu.stat usage_usec × 1000
//   memory usage   v1 memory/memory.usage_in_bytes of the root; v2 has no root memory.current, so
//                  MemTotal − MemFree from /proc/meminfo (libcontainer's root statistics do the same)
//   working set    usage − inactive file pages (v1 total_inactive_file, v2 inactive_file), never < 0
//   available      MemTotal − working set (pkg/kubelet/stats/helper.go; eviction's memory.available)
//   rlimit         maxpid = min(pid_max, threads-max), curproc = the 4th field's total in /proc/loadavg
//                  (pkg/kubelet/stats/pidlimit)
// Every reader answers undefined for what it cannot read: a figure the node does not have is left
// out of the summary, as the kubelet's omitempty pointers, never reported as 0.
import { readFileSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { FsStats, InterfaceStats } from "./types";

/** The host's files, behind a seam so that tests give fixtures. */
export interface HostFiles {
  /** The file's text, or undefined when it cannot be read. */
  read(path: string): string | undefined;
  /** statfs of the filesystem holding path, or undefined. */
  statfs(path: string): { blocks: number; bavail: number; bfree: number; bsize: number; files: number; ffree: number } | undefined;
}

export const SYSTEM_HOST_FILES: HostFiles = {
  read(path) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  },
  statfs(path) {
    try {
      return statfsSync(path);
    } catch {
      return undefined;
    }
  },
};

export const CGROUP_MOUNT = "/sys/fs/cgroup";

/** "key value" lines (memory.stat, cpu.stat) as numbers. */
export function parseFlatKeyed(text: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of (text ?? "").split("\n")) {
    const [k, v] = l.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

function num(text: string | undefined): number | undefined {
  const t = text?.trim();
  return t && /^\d+$/.test(t) ? Number(t) : undefined;
}

/** Whether the cgroup tree is v2 (unified at /sys/fs/cgroup): cgroup.controllers exists at its top. */
export function isCgroupV2(files: HostFiles, mount = CGROUP_MOUNT): boolean {
  return files.read(join(mount, "cgroup.controllers")) !== undefined;
}

export interface CgroupUsage {
  cpuNanos?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
  /** The cgroup's memory limit, when it has one (not "max", not the v1 unlimited sentinel). */
  limitBytes?: number;
}

/** The v1 "no limit" value is PAGE_COUNTER_MAX pages, about 2^63 bytes: anything ≥ 2^60 is no limit. */
const V1_UNLIMITED = 2 ** 60;

/**
 * The cpu and memory figures of one cgroup, `path` relative to the hierarchy's root ("/" for the
 * node, "/nodeagent" for the pods' parent). For the root on v2 the memory usage comes from
 * /proc/meminfo, as there is no root memory.current.
 */
export function readCgroupUsage(files: HostFiles, path: string, mount = CGROUP_MOUNT): CgroupUsage {
  const root = path === "/" || path === "";
  if (isCgroupV2(files, mount)) {
    const dir = join(mount, path);
    const cpu = parseFlatKeyed(files.read(join(dir, "cpu.stat"))).get("usage_usec");
    const stat = parseFlatKeyed(files.read(join(dir, "memory.stat")));
    let usage = num(files.read(join(dir, "memory.current")));
    if (usage === undefined && root) {
      const mem = meminfo(files);
      if (mem.total !== undefined && mem.free !== undefined) usage = mem.total - mem.free;
    }
    const max = files.read(join(dir, "memory.max"))?.trim();
    return usageFrom(
      cpu === undefined ? undefined : cpu * 1000,
      usage,
      stat.get("inactive_file"),
      stat.get("anon"),
      stat.get("pgfault"),
      stat.get("pgmajfault"),
      max && max !== "max" ? num(max) : undefined,
    );
  }
  const cpu = num(files.read(join(mount, "cpuacct", path, "cpuacct.usage")));
  const memDir = join(mount, "memory", path);
  const stat = parseFlatKeyed(files.read(join(memDir, "memory.stat")));
  const limit = num(files.read(join(memDir, "memory.limit_in_bytes")));
  return usageFrom(
    cpu,
    num(files.read(join(memDir, "memory.usage_in_bytes"))),
    stat.get("total_inactive_file"),
    stat.get("total_rss"),
    stat.get("total_pgfault"),
    stat.get("total_pgmajfault"),
    limit !== undefined && limit < V1_UNLIMITED ? limit : undefined,
  );
}

function usageFrom(
  cpuNanos: number | undefined,
  usage: number | undefined,
  inactiveFile: number | undefined,
  rss: number | undefined,
  pgfault: number | undefined,
  pgmajfault: number | undefined,
  limitBytes: number | undefined,
): CgroupUsage {
  // cAdvisor's working set: usage less the inactive file cache, which the kernel reclaims first.
  const workingSetBytes = usage === undefined ? undefined : Math.max(0, usage - (inactiveFile ?? 0));
  return { cpuNanos, usageBytes: usage, workingSetBytes, rssBytes: rss, pageFaults: pgfault, majorPageFaults: pgmajfault, limitBytes };
}

/** MemTotal and MemFree from /proc/meminfo, in bytes. */
export function meminfo(files: HostFiles): { total?: number; free?: number } {
  const text = files.read("/proc/meminfo") ?? "";
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  return { total: kb("MemTotal"), free: kb("MemFree") };
}

/** Interfaces that are not the node's own: loopback, the veth ends of pod networks, bridges of CNI. */
function isNodeInterface(name: string): boolean {
  return name !== "lo" && !name.startsWith("veth") && !name.startsWith("cni") && !name.startsWith("docker") && !name.startsWith("flannel");
}

/**
 * The node's interfaces from /proc/net/dev (cAdvisor's list, without loopback and pod ends), and which
 * is the default: the interface of the default route (/proc/net/route), else the first.
 */
export function readNetwork(files: HostFiles): { defaultName?: string; interfaces: InterfaceStats[] } {
  const interfaces: InterfaceStats[] = [];
  for (const l of (files.read("/proc/net/dev") ?? "").split("\n").slice(2)) {
    const m = /^\s*([^:\s]+):\s*(.*)$/.exec(l);
    if (!m || !isNodeInterface(m[1]!)) continue;
    const f = m[2]!.trim().split(/\s+/).map(Number);
    // receive: bytes packets errs drop fifo frame compressed multicast; transmit: bytes packets errs …
    interfaces.push({ name: m[1]!, rxBytes: f[0], rxErrors: f[2], txBytes: f[8], txErrors: f[10] });
  }
  let defaultName: string | undefined;
  for (const l of (files.read("/proc/net/route") ?? "").split("\n").slice(1)) {
    const [iface, dest, , , , , , mask] = l.trim().split(/\s+/);
    if (iface && dest === "00000000" && mask === "00000000") {
      defaultName = iface;
      break;
    }
  }
  if (!interfaces.some((i) => i.name === defaultName)) defaultName = interfaces[0]?.name;
  return { defaultName, interfaces };
}

/** The pid limits the kubelet reports in rlimit and eviction's pid.available reads. */
export function readPidLimits(files: HostFiles): { maxpid?: number; curproc?: number } {
  const pidMax = num(files.read("/proc/sys/kernel/pid_max"));
  const threadsMax = num(files.read("/proc/sys/kernel/threads-max"));
  const maxpid = pidMax !== undefined && threadsMax !== undefined ? Math.min(pidMax, threadsMax) : (pidMax ?? threadsMax);
  // /proc/loadavg: "0.00 0.01 0.05 1/123 4567": running/total scheduling entities.
  const m = /\s\d+\/(\d+)\s/.exec(files.read("/proc/loadavg") ?? "");
  return { maxpid, curproc: m ? Number(m[1]) : undefined };
}

/** A filesystem's capacity, free space and inodes (the kubelet's FsStats from statfs), `used` given or computed. */
export function fsStats(files: HostFiles, path: string, time: string, used?: { bytes?: number; inodes?: number }): FsStats {
  const s = files.statfs(path);
  if (!s) return { time, usedBytes: used?.bytes, inodesUsed: used?.inodes };
  return {
    time,
    availableBytes: s.bavail * s.bsize,
    capacityBytes: s.blocks * s.bsize,
    usedBytes: used?.bytes ?? (s.blocks - s.bfree) * s.bsize,
    inodesFree: s.ffree,
    inodes: s.files,
    inodesUsed: used?.inodes ?? s.files - s.ffree,
  };
}
