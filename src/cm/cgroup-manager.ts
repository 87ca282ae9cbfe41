// CgroupManager: every write nodeagent makes to the cgroup file system goes through this interface
// (the kubelet's CgroupManager, k/k@1.24.1 pkg/kubelet/cm/cgroup_manager_linux.go), with a fake for
// the unit tests (test/fakes/cgroups.ts). FsCgroupManager is the real one: it makes the folders and
// writes the files itself, as the kubelet's cgroupfs driver does through libcontainer's fs managers,
//   cgroup v1   one folder per hierarchy nodeagent sets or that must be ready for runc (cpu, cpuacct,
//               cpuset with cpus and mems copied down from the parent, memory, pids, hugetlb);
//               cpu.shares, cpu.cfs_period_us, cpu.cfs_quota_us, memory.limit_in_bytes, pids.max
//   cgroup v2   one folder, the controllers enabled in each parent's cgroup.subtree_control;
//               cpu.weight (from the shares, as runc converts them), cpu.max, memory.max, pids.max
// for either driver's name. With the systemd driver the kubelet asks systemd (over D-Bus) to make
// the slices; nodeagent makes the same folders at the slices' expanded paths (see README, "QoS and
// cgroups": systemd must still be the init system, which the container manager checks at start).
// Every path is confined to the mount (src/util/confined-path.ts): a name that would lead out of
// /sys/fs/cgroup is refused before anything is written.
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertInside, errorMessage, mkdirInside } from "../util";
import { driverName, type CgroupDriver, type CgroupName } from "./cgroup-name";
import { sharesToWeight, type ResourceConfig } from "./resource-config";

export const CGROUP_MOUNT = "/sys/fs/cgroup";

export interface CgroupManager {
  readonly driver: CgroupDriver;
  /** The driver's spelling of the name: the runtime's cgroup_parent, and the folder below each hierarchy. */
  name(name: CgroupName): string;
  exists(name: CgroupName): boolean;
  /** Makes the cgroup (and its parents) and sets the values given. */
  create(name: CgroupName, config: ResourceConfig): void;
  /** Sets the values given on a cgroup that exists. */
  update(name: CgroupName, config: ResourceConfig): void;
  /**
   * Removes the cgroup and everything below it, children first, in every hierarchy; a cgroup that is
   * not there is no error. Throws CgroupBusyError naming what is left when a folder would not go.
   */
  destroy(name: CgroupName): void;
  /** How many processes are in the cgroup or below it, in any hierarchy (cgroup.procs, v1 and v2); 0 when it is not there. */
  processes(name: CgroupName): number;
  /** The folder names (in the driver's spelling) of the cgroups directly below this one; [] when it is not there. */
  children(name: CgroupName): string[];
}

/** The v1 hierarchies the cgroup is made in before the runtime puts containers below it. */
const V1_HIERARCHIES = ["cpu", "cpuacct", "cpuset", "memory", "pids", "hugetlb"] as const;
/** The v2 controllers enabled for the children, when the parent has them. */
const V2_CONTROLLERS = ["cpuset", "cpu", "io", "memory", "hugetlb", "pids"] as const;

/** Whether the cgroup tree at `mount` is v2 (unified): its top has cgroup.controllers. */
export function isUnified(mount = CGROUP_MOUNT): boolean {
  return existsSync(join(mount, "cgroup.controllers"));
}

export class CgroupWriteError extends Error {
  override name = "CgroupWriteError";
}

/** A cgroup folder that rmdir refused (EBUSY: processes or a child left), named with the error. */
export class CgroupBusyError extends Error {
  override name = "CgroupBusyError";
}

function write(mount: string, file: string, value: string): void {
  assertInside(mount, file);
  try {
    writeFileSync(file, value);
  } catch (err) {
    throw new CgroupWriteError(`writing ${JSON.stringify(value)} to ${file}: ${errorMessage(err)}`);
  }
}

function read(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

export class FsCgroupManager implements CgroupManager {
  constructor(
    readonly driver: CgroupDriver,
    /** Where the cgroup file system is mounted; a temporary folder in tests. */
    private readonly mount = CGROUP_MOUNT,
  ) {}

  name(name: CgroupName): string {
    return driverName(name, this.driver);
  }

  private get unified(): boolean {
    return isUnified(this.mount);
  }

  /** The hierarchies' folders of the cgroup (v1: those of V1_HIERARCHIES mounted here). */
  private folders(name: CgroupName): string[] {
    const path = this.name(name);
    if (this.unified) return [this.confined(this.mount, path)];
    return V1_HIERARCHIES.filter((h) => existsSync(join(this.mount, h))).map((h) => this.confined(join(this.mount, h), path));
  }

  /** `<root>/<path>`, refused when it is not strictly below root. */
  private confined(root: string, path: string): string {
    const dir = join(root, path);
    assertInside(root, dir);
    return dir;
  }

  exists(name: CgroupName): boolean {
    const dirs = this.folders(name);
    return dirs.length > 0 && dirs.every((d) => existsSync(d));
  }

  create(name: CgroupName, config: ResourceConfig): void {
    const path = this.name(name);
    if (this.unified) {
      this.makeV2(path);
    } else {
      for (const h of V1_HIERARCHIES) {
        const root = join(this.mount, h);
        if (!existsSync(root)) continue;
        if (h === "cpuset") this.makeCpuset(root, path);
        else mkdirInside(root, this.confined(root, path));
      }
    }
    this.update(name, config);
  }

  /** Each level made in turn, the controllers enabled in its parent first (libcontainer fs2 CreateCgroupPath). */
  private makeV2(path: string): void {
    let dir = this.mount;
    for (const part of path.split("/").filter(Boolean)) {
      const available = read(join(dir, "cgroup.controllers")).split(/\s+/);
      const enabled = new Set(read(join(dir, "cgroup.subtree_control")).split(/\s+/));
      const wanted = V2_CONTROLLERS.filter((c) => available.includes(c) && !enabled.has(c));
      if (wanted.length) write(this.mount, join(dir, "cgroup.subtree_control"), wanted.map((c) => `+${c}`).join(" "));
      dir = join(dir, part);
      if (!existsSync(dir)) mkdirInside(this.mount, dir);
    }
  }

  /** A v1 cpuset folder must have cpus and mems before a task can join: copied down from the parent (runc's cpusetCopyIfNeeded). */
  private makeCpuset(root: string, path: string): void {
    let parent = root;
    for (const part of path.split("/").filter(Boolean)) {
      const dir = join(parent, part);
      if (!existsSync(dir)) mkdirInside(root, dir);
      for (const f of ["cpuset.cpus", "cpuset.mems"]) {
        if (read(join(dir, f)) === "") write(root, join(dir, f), read(join(parent, f)));
      }
      parent = dir;
    }
  }

  update(name: CgroupName, config: ResourceConfig): void {
    const path = this.name(name);
    if (this.unified) {
      const dir = this.confined(this.mount, path);
      if (config.cpuShares !== undefined && config.cpuShares !== 0) write(this.mount, join(dir, "cpu.weight"), String(sharesToWeight(config.cpuShares)));
      if (config.cpuPeriod !== undefined && config.cpuPeriod !== 0) {
        const quota = config.cpuQuota !== undefined && config.cpuQuota > 0 ? String(config.cpuQuota) : "max";
        write(this.mount, join(dir, "cpu.max"), `${quota} ${config.cpuPeriod}`);
      }
      if (config.memoryLimitBytes !== undefined && config.memoryLimitBytes !== 0)
        write(this.mount, join(dir, "memory.max"), config.memoryLimitBytes < 0 ? "max" : String(config.memoryLimitBytes));
      if (config.pidsLimit !== undefined && config.pidsLimit !== 0)
        write(this.mount, join(dir, "pids.max"), config.pidsLimit < 0 ? "max" : String(config.pidsLimit));
      return;
    }
    const at = (h: string) => this.confined(join(this.mount, h), path);
    if (config.cpuShares !== undefined && config.cpuShares !== 0) write(this.mount, join(at("cpu"), "cpu.shares"), String(config.cpuShares));
    if (config.cpuPeriod !== undefined && config.cpuPeriod !== 0) {
      const period = () => write(this.mount, join(at("cpu"), "cpu.cfs_period_us"), String(config.cpuPeriod));
      const quota = () =>
        config.cpuQuota !== undefined && config.cpuQuota !== 0 && write(this.mount, join(at("cpu"), "cpu.cfs_quota_us"), String(config.cpuQuota));
      // The kernel refuses a period that would leave the current quota over it: then quota first (runc's order).
      try {
        period();
        quota();
      } catch {
        quota();
        period();
      }
    }
    if (config.memoryLimitBytes !== undefined && config.memoryLimitBytes !== 0)
      write(this.mount, join(at("memory"), "memory.limit_in_bytes"), String(config.memoryLimitBytes));
    if (config.pidsLimit !== undefined && config.pidsLimit !== 0 && existsSync(join(this.mount, "pids")))
      write(this.mount, join(at("pids"), "pids.max"), config.pidsLimit < 0 ? "max" : String(config.pidsLimit));
  }

  destroy(name: CgroupName): void {
    const left = removeCgroupTree(this.name(name), this.mount);
    if (left.length) throw new CgroupBusyError(left.join("; "));
  }

  processes(name: CgroupName): number {
    return cgroupTreeProcesses(this.name(name), this.mount);
  }

  /** Read in one hierarchy (memory on v1: every pod cgroup is made there). */
  children(name: CgroupName): string[] {
    const path = this.name(name);
    const dir = this.unified ? this.confined(this.mount, path) : this.confined(join(this.mount, "memory"), path);
    try {
      return readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name);
    } catch {
      return [];
    }
  }
}

/** Every hierarchy mounted at `mount`, named as mounted (v2: the mount itself); [] when unreadable. */
function hierarchyRoots(mount: string): string[] {
  try {
    // cpu may be a link to cpu,cpuacct: a folder seen twice is harmless to read or remove.
    return isUnified(mount) ? [mount] : readdirSync(mount).map((d) => join(mount, d));
  } catch {
    return [];
  }
}

function subfolders(dir: string): string[] | undefined {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return undefined;
  }
}

/**
 * Removes a cgroup folder and the folders below it, bottom-up (children first, as the kubelet's
 * cgroup manager Destroy through libcontainer's RemovePaths), in every hierarchy mounted at `mount`,
 * v1 or v2. Returns what would not go ("<dir>: <error>"), [] when everything is gone or was never
 * there. The runtime removed the containers' own cgroups; what is left should be empty folders.
 * Refuses (PathEscapeError) a path that would lead out of a hierarchy.
 */
export function removeCgroupTree(path: string, mount = CGROUP_MOUNT): string[] {
  const left: string[] = [];
  const rm = (dir: string) => {
    const subs = subfolders(dir);
    if (subs === undefined) return;
    for (const s of subs) rm(join(dir, s));
    try {
      rmdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") left.push(`${dir}: ${errorMessage(err)}`);
    }
  };
  for (const r of hierarchyRoots(mount)) {
    const dir = join(r, path);
    assertInside(r, dir);
    rm(dir);
  }
  return left;
}

/** The processes in the cgroup and below it, summed over every hierarchy (one process counts once per hierarchy it is in). */
export function cgroupTreeProcesses(path: string, mount = CGROUP_MOUNT): number {
  let n = 0;
  const walk = (dir: string) => {
    const subs = subfolders(dir);
    if (subs === undefined) return;
    n += read(join(dir, "cgroup.procs")).split("\n").filter(Boolean).length;
    for (const s of subs) walk(join(dir, s));
  };
  for (const r of hierarchyRoots(mount)) {
    const dir = join(r, path);
    assertInside(r, dir);
    walk(dir);
  }
  return n;
}
