// FsCgroupManager against a folder laid out as /sys/fs/cgroup is (v1: a hierarchy per controller;
// v2: one unified tree): the folders it makes, the files it writes, and the paths it refuses.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CgroupBusyError, FsCgroupManager, removeCgroupTree } from "../../src/cm/cgroup-manager";
import { PathEscapeError } from "../../src/util/confined-path";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function v1Tree(): string {
  const mount = mkdtempSync(join(tmpdir(), "cgroup-v1-"));
  dirs.push(mount);
  for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids", "devices", "systemd"]) mkdirSync(join(mount, h));
  writeFileSync(join(mount, "cpuset", "cpuset.cpus"), "0-3\n");
  writeFileSync(join(mount, "cpuset", "cpuset.mems"), "0\n");
  return mount;
}

function v2Tree(): string {
  const mount = mkdtempSync(join(tmpdir(), "cgroup-v2-"));
  dirs.push(mount);
  writeFileSync(join(mount, "cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
  writeFileSync(join(mount, "cgroup.subtree_control"), "memory\n");
  return mount;
}

const text = (path: string) => readFileSync(path, "utf8");
const name = ["na", "kubepods", "burstable", "podu-1"];

describe("cgroup v1", () => {
  test("the cgroup is made in the hierarchies runc needs ready (cpuset with cpus and mems copied down) and its values written", () => {
    const mount = v1Tree();
    const m = new FsCgroupManager("cgroupfs", mount);
    expect(m.exists(name)).toBe(false);
    m.create(name, { cpuShares: 256, cpuPeriod: 100_000, cpuQuota: 25_000, memoryLimitBytes: 64 * 2 ** 20, pidsLimit: 100 });
    expect(m.exists(name)).toBe(true);
    const p = "na/kubepods/burstable/podu-1";
    for (const h of ["cpu", "cpuacct", "cpuset", "memory", "pids"]) expect(existsSync(join(mount, h, p))).toBe(true);
    // Left to runc, which makes its containers' folders in every hierarchy.
    expect(existsSync(join(mount, "devices", p))).toBe(false);
    expect(text(join(mount, "cpu", p, "cpu.shares"))).toBe("256");
    expect(text(join(mount, "cpu", p, "cpu.cfs_period_us"))).toBe("100000");
    expect(text(join(mount, "cpu", p, "cpu.cfs_quota_us"))).toBe("25000");
    expect(text(join(mount, "memory", p, "memory.limit_in_bytes"))).toBe(String(64 * 2 ** 20));
    expect(text(join(mount, "pids", p, "pids.max"))).toBe("100");
    for (const level of ["na", "na/kubepods", p]) {
      expect(text(join(mount, "cpuset", level, "cpuset.cpus"))).toBe("0-3");
      expect(text(join(mount, "cpuset", level, "cpuset.mems"))).toBe("0");
    }
    // An update writes only what it is given.
    m.update(name, { cpuShares: 2 });
    expect(text(join(mount, "cpu", p, "cpu.shares"))).toBe("2");
    expect(text(join(mount, "cpu", p, "cpu.cfs_quota_us"))).toBe("25000");
  });

  test("the systemd driver's cgroups are at the slices' expanded paths", () => {
    const mount = v1Tree();
    const m = new FsCgroupManager("systemd", mount);
    m.create(name, { cpuShares: 307 });
    expect(text(join(mount, "cpu", "na.slice/na-kubepods.slice/na-kubepods-burstable.slice/na-kubepods-burstable-podu_1.slice", "cpu.shares"))).toBe("307");
  });

  test("a name leading out of the mount is refused before anything is written", () => {
    const mount = v1Tree();
    const m = new FsCgroupManager("cgroupfs", mount);
    expect(() => m.create(["..", "escaped"], { cpuShares: 2 })).toThrow(PathEscapeError);
    expect(() => m.update(["..", ".."], { cpuShares: 2 })).toThrow(PathEscapeError);
    expect(existsSync(join(mount, "escaped"))).toBe(false);
    expect(() => removeCgroupTree("/../..", mount)).toThrow(PathEscapeError);
  });

  test("the cgroups below one, as folder names in the driver's spelling", () => {
    const mount = v1Tree();
    const m = new FsCgroupManager("systemd", mount);
    m.create(["na", "kubepods", "podu-1"], {});
    m.create(["na", "kubepods", "burstable"], {});
    expect(m.children(["na", "kubepods"]).sort()).toEqual(["na-kubepods-burstable.slice", "na-kubepods-podu_1.slice"]);
    expect(m.children(["na", "nothing"])).toEqual([]);
  });

  test("removal takes the folder and what is below it out of every hierarchy", () => {
    const mount = v1Tree();
    for (const h of ["cpu", "memory", "devices", "systemd"]) mkdirSync(join(mount, h, "na/kubepods/podu-1/c1"), { recursive: true });
    new FsCgroupManager("cgroupfs", mount).destroy(["na", "kubepods", "podu-1"]);
    for (const h of ["cpu", "memory", "devices", "systemd"]) {
      expect(existsSync(join(mount, h, "na/kubepods/podu-1"))).toBe(false);
      expect(existsSync(join(mount, h, "na/kubepods"))).toBe(true);
    }
  });

  test("processes are counted over the whole subtree in every hierarchy; a folder that will not go is named in a CgroupBusyError, and the rest still goes", () => {
    const mount = v1Tree();
    const m = new FsCgroupManager("cgroupfs", mount);
    const pod = ["na", "kubepods", "podu-1"];
    for (const h of ["cpu", "memory"]) mkdirSync(join(mount, h, "na/kubepods/podu-1/sandbox/c1"), { recursive: true });
    expect(m.processes(pod)).toBe(0);
    // A process two levels down, in one hierarchy (the kernel keeps cgroup.procs per folder).
    writeFileSync(join(mount, "memory", "na/kubepods/podu-1/sandbox/c1/cgroup.procs"), "4242\n4243\n");
    expect(m.processes(pod)).toBe(2);
    expect(m.processes(["na", "nothing"])).toBe(0);
    // A folder holding a file stands for one rmdir refuses (a cgroup with a child or a task left).
    expect(() => m.destroy(pod)).toThrow(CgroupBusyError);
    expect(() => m.destroy(pod)).toThrow(join(mount, "memory", "na/kubepods/podu-1/sandbox/c1"));
    expect(existsSync(join(mount, "cpu", "na/kubepods/podu-1"))).toBe(false);
    rmSync(join(mount, "memory", "na/kubepods/podu-1/sandbox/c1/cgroup.procs"));
    m.destroy(pod);
    expect(existsSync(join(mount, "memory", "na/kubepods/podu-1"))).toBe(false);
    // Not there at all: no error.
    m.destroy(pod);
  });
});

describe("cgroup v2", () => {
  test("the controllers are enabled in the parent, and cpu.weight (from shares), cpu.max, memory.max written", () => {
    const mount = v2Tree();
    const m = new FsCgroupManager("cgroupfs", mount);
    m.create(name, { cpuShares: 1024, cpuPeriod: 100_000, cpuQuota: 50_000, memoryLimitBytes: 2 ** 27 });
    expect(text(join(mount, "cgroup.subtree_control"))).toBe("+cpuset +cpu +io +hugetlb +pids");
    const dir = join(mount, "na/kubepods/burstable/podu-1");
    expect(text(join(dir, "cpu.weight"))).toBe("39");
    expect(text(join(dir, "cpu.max"))).toBe("50000 100000");
    expect(text(join(dir, "memory.max"))).toBe(String(2 ** 27));
    m.update(name, { cpuPeriod: 100_000, memoryLimitBytes: -1 });
    expect(text(join(dir, "cpu.max"))).toBe("max 100000");
    expect(text(join(dir, "memory.max"))).toBe("max");
    expect(m.exists(name)).toBe(true);
  });
});
