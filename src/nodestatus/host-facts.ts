// The facts about this host the Node reports (capacity, nodeInfo, the arch labels): what cAdvisor's
// MachineInfo and VersionInfo give the kubelet, read here from the same host files (/proc, /sys, /etc)
// instead. readHostFacts() reads them once per call; the Node builder takes them as a parameter so its
// arithmetic is testable without this host.
import * as fs from "node:fs";
import * as os from "node:os";
import { join } from "node:path";

export interface HostFacts {
  /** Online CPUs. */
  cpus: number;
  /** MemTotal from /proc/meminfo, in bytes. */
  memoryBytes: number;
  /** Size of the filesystem holding the agent's root dir (the kubelet's nodefs), when statfs works. */
  ephemeralStorageBytes?: number;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** The huge page pools (/sys/kernel/mm/hugepages), as cAdvisor's MachineInfo.HugePages. */
  hugePages: HugePagePool[];
  /** GOARCH spelling: amd64, arm64, … */
  architecture: string;
}

export interface HugePagePool {
  pageSizeBytes: number;
  /** nr_hugepages: pages of that size set aside. */
  pages: number;
}

function readText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Node's process.arch → the GOARCH names Kubernetes uses in kubernetes.io/arch. */
export function goArch(arch: string = process.arch): string {
  const map: Record<string, string> = {
    x64: "amd64",
    arm64: "arm64",
    arm: "arm",
    ia32: "386",
    ppc64: "ppc64le",
    s390x: "s390x",
    riscv64: "riscv64",
    loong64: "loong64",
  };
  return map[arch] ?? arch;
}

function countCpus(): number {
  // cAdvisor counts the processors listed in /proc/cpuinfo; os.cpus() is the fallback off Linux.
  const cpuinfo = readText("/proc/cpuinfo");
  const n = cpuinfo ? cpuinfo.split("\n").filter((l) => /^processor\s*:/.test(l)).length : 0;
  return n > 0 ? n : Math.max(1, os.cpus().length);
}

function memTotalBytes(): number {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(readText("/proc/meminfo") ?? "");
  return m ? Number(m[1]) * 1024 : os.totalmem();
}

/** cAdvisor's ContainerOsVersion: PRETTY_NAME of os-release, "Linux" without one. */
export function osPrettyName(osRelease: string | undefined): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease ?? "");
  if (!m) return "Linux";
  return m[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
}

/**
 * The huge page pools as cAdvisor reads them (machine.GetHugePagesInfo): one directory
 * hugepages-<size>kB per page size the kernel supports, its nr_hugepages the pages set aside. No
 * directory (no hugetlbfs support, or a container without /sys) means no pools.
 */
export function readHugePages(sysRoot = "/"): HugePagePool[] {
  const dir = join(sysRoot, "sys/kernel/mm/hugepages");
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const pools: HugePagePool[] = [];
  for (const name of names.sort()) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    const pages = Number((readText(join(dir, name, "nr_hugepages")) ?? "").trim());
    pools.push({ pageSizeBytes: Number(m[1]) * 1024, pages: Number.isSafeInteger(pages) && pages > 0 ? pages : 0 });
  }
  return pools.sort((a, b) => a.pageSizeBytes - b.pageSizeBytes);
}

/**
 * Reads the facts buildNode needs from this host. `rootDir` is the directory whose filesystem is
 * nodefs; `sysRoot` is where /etc, /proc and /sys are found ("/"; a fixture tree in tests).
 */
export function readHostFacts(rootDir = "/", sysRoot = "/"): HostFacts {
  const at = (path: string) => readText(join(sysRoot, path));
  let ephemeralStorageBytes: number | undefined;
  try {
    const st = fs.statfsSync(rootDir);
    ephemeralStorageBytes = Number(st.blocks) * Number(st.bsize);
  } catch {
    ephemeralStorageBytes = undefined;
  }
  return {
    cpus: countCpus(),
    memoryBytes: memTotalBytes(),
    ephemeralStorageBytes,
    // cAdvisor's machine-id files, in its order.
    machineID: (at("etc/machine-id") ?? at("var/lib/dbus/machine-id") ?? "").trim(),
    // Readable by root only on most hosts; cAdvisor leaves it empty too when it cannot read it.
    systemUUID: (at("sys/class/dmi/id/product_uuid") ?? "").trim(),
    bootID: (at("proc/sys/kernel/random/boot_id") ?? "").trim(),
    // VersionInfo.KernelVersion is uname -r; the osrelease file is the same string.
    kernelVersion: sysRoot === "/" ? os.release() : (at("proc/sys/kernel/osrelease") ?? "").trim(),
    osImage: osPrettyName(at("etc/os-release") ?? at("usr/lib/os-release")),
    hugePages: readHugePages(sysRoot),
    architecture: goArch(),
  };
}
