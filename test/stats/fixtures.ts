// Host files for the stats provider's tests: a map of path → text, and statfs answers by path prefix.
import type { HostFiles } from "../../src/stats/host";

export function fakeHost(
  files: Record<string, string>,
  statfs: Record<string, { blocks: number; bavail: number; bfree: number; bsize: number; files: number; ffree: number }> = {},
): HostFiles {
  return {
    read: (p) => files[p],
    statfs: (p) => {
      const key = Object.keys(statfs)
        .filter((k) => p === k || p.startsWith(`${k}/`))
        .sort((a, b) => b.length - a.length)[0];
      return key ? statfs[key] : undefined;
    },
  };
}

export const MEMINFO = "MemTotal:        1000000 kB\nMemFree:          400000 kB\nMemAvailable:     600000 kB\n";

/** A cgroup v1 host: cpuacct and memory controllers at /sys/fs/cgroup/<controller>. */
export function v1Host(extra: Record<string, string> = {}): Record<string, string> {
  return {
    "/proc/meminfo": MEMINFO,
    "/sys/fs/cgroup/cpuacct/cpuacct.usage": "5000000000\n",
    "/sys/fs/cgroup/memory/memory.usage_in_bytes": "500000000\n",
    "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n",
    "/sys/fs/cgroup/memory/memory.stat": "cache 1\nrss 2\ntotal_rss 300000000\ntotal_inactive_file 100000000\ntotal_pgfault 77\ntotal_pgmajfault 3\n",
    ...extra,
  };
}
