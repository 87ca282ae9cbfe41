// The node's figures from cgroup v1 and v2 files, /proc and statfs, as cAdvisor and the kubelet compute them.
import { describe, expect, test } from "bun:test";
import { fsStats, readCgroupUsage, readNetwork, readPidLimits } from "../../src/stats/host";
import { fakeHost, MEMINFO, v1Host } from "./fixtures";

describe("readCgroupUsage", () => {
  test("v1 root: cpuacct ns, usage_in_bytes, working set = usage − total_inactive_file, the unlimited sentinel is no limit", () => {
    const u = readCgroupUsage(fakeHost(v1Host()), "/");
    expect(u).toEqual({
      cpuNanos: 5e9,
      usageBytes: 500_000_000,
      workingSetBytes: 400_000_000,
      rssBytes: 300_000_000,
      pageFaults: 77,
      majorPageFaults: 3,
      limitBytes: undefined,
    });
  });

  test("v1 child cgroup with a limit", () => {
    const files = v1Host({
      "/sys/fs/cgroup/cpuacct/nodeagent/cpuacct.usage": "10\n",
      "/sys/fs/cgroup/memory/nodeagent/memory.usage_in_bytes": "1000\n",
      "/sys/fs/cgroup/memory/nodeagent/memory.limit_in_bytes": "4096\n",
      "/sys/fs/cgroup/memory/nodeagent/memory.stat": "total_inactive_file 2000\n",
    });
    const u = readCgroupUsage(fakeHost(files), "/nodeagent");
    // Inactive file pages above usage never make a negative working set.
    expect(u).toMatchObject({ cpuNanos: 10, usageBytes: 1000, workingSetBytes: 0, limitBytes: 4096 });
  });

  test("v2 root: usage from /proc/meminfo (no root memory.current), cpu.stat usage_usec × 1000", () => {
    const files = {
      "/sys/fs/cgroup/cgroup.controllers": "cpu memory pids\n",
      "/sys/fs/cgroup/cpu.stat": "usage_usec 2500\nuser_usec 2000\n",
      "/sys/fs/cgroup/memory.stat": "anon 100\ninactive_file 200000\npgfault 9\npgmajfault 1\n",
      "/proc/meminfo": MEMINFO,
    };
    const u = readCgroupUsage(fakeHost(files), "/");
    expect(u).toEqual({
      cpuNanos: 2_500_000,
      usageBytes: 600_000 * 1024,
      workingSetBytes: 600_000 * 1024 - 200_000,
      rssBytes: 100,
      pageFaults: 9,
      majorPageFaults: 1,
      limitBytes: undefined,
    });
  });

  test("v2 child: memory.current and memory.max ('max' is no limit)", () => {
    const files = {
      "/sys/fs/cgroup/cgroup.controllers": "cpu memory\n",
      "/sys/fs/cgroup/kubepods/cpu.stat": "usage_usec 1\n",
      "/sys/fs/cgroup/kubepods/memory.current": "5000\n",
      "/sys/fs/cgroup/kubepods/memory.max": "max\n",
      "/sys/fs/cgroup/kubepods/memory.stat": "inactive_file 1000\n",
    };
    expect(readCgroupUsage(fakeHost(files), "/kubepods")).toMatchObject({ cpuNanos: 1000, usageBytes: 5000, workingSetBytes: 4000, limitBytes: undefined });
  });

  test("nothing readable: every figure undefined, never 0", () => {
    expect(readCgroupUsage(fakeHost({}), "/")).toEqual({
      cpuNanos: undefined,
      usageBytes: undefined,
      workingSetBytes: undefined,
      rssBytes: undefined,
      pageFaults: undefined,
      majorPageFaults: undefined,
      limitBytes: undefined,
    });
  });
});

test("readNetwork: loopback and pod ends left out; the default route's interface is the default", () => {
  const dev = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 100 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0
  eth1: 10 2 1 0 0 0 0 0 20 3 4 0 0 0 0 0
  eth0: 1000 20 0 0 0 0 0 0 2000 30 5 0 0 0 0 0
veth12ab: 7 1 0 0 0 0 0 0 7 1 0 0 0 0 0 0
`;
  const route =
    "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\nnodeagent0\t0000580A\t00000000\t0001\t0\t0\t0\t0000FFFF\neth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\n";
  const n = readNetwork(fakeHost({ "/proc/net/dev": dev, "/proc/net/route": route }));
  expect(n.defaultName).toBe("eth0");
  expect(n.interfaces).toEqual([
    { name: "eth1", rxBytes: 10, rxErrors: 1, txBytes: 20, txErrors: 4 },
    { name: "eth0", rxBytes: 1000, rxErrors: 0, txBytes: 2000, txErrors: 5 },
  ]);
});

test("readPidLimits: maxpid = min(pid_max, threads-max), curproc from /proc/loadavg", () => {
  const files = { "/proc/sys/kernel/pid_max": "4194304\n", "/proc/sys/kernel/threads-max": "190000\n", "/proc/loadavg": "0.10 0.20 0.30 2/345 6789\n" };
  expect(readPidLimits(fakeHost(files))).toEqual({ maxpid: 190000, curproc: 345 });
});

test("fsStats: capacity and free space from statfs; used given or computed", () => {
  const host = fakeHost({}, { "/var/lib/na": { blocks: 100, bavail: 30, bfree: 40, bsize: 4096, files: 1000, ffree: 900 } });
  expect(fsStats(host, "/var/lib/na/pods", "T")).toEqual({
    time: "T",
    availableBytes: 30 * 4096,
    capacityBytes: 100 * 4096,
    usedBytes: 60 * 4096,
    inodesFree: 900,
    inodes: 1000,
    inodesUsed: 100,
  });
  expect(fsStats(host, "/var/lib/na", "T", { bytes: 5, inodes: 2 })).toMatchObject({ usedBytes: 5, inodesUsed: 2 });
  expect(fsStats(host, "/elsewhere", "T")).toEqual({ time: "T", usedBytes: undefined, inodesUsed: undefined });
});
