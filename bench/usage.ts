// What the benchmarks read about a process and a sample: RSS and CPU from /proc, percentiles.
import { readFileSync } from "node:fs";

/** USER_HZ on Linux: the unit of utime and stime in /proc/<pid>/stat. */
export const USER_HZ = 100;

export function procUsage(pid: number): { rssMiB: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { rssMiB: rss, cpuTicks: Number(stat[11]) + Number(stat[12]) };
}

/** RSS at the end and CPU (percent of one core) of each process over `seconds`. */
export async function usageOver(pids: number[], seconds: number): Promise<{ rssMiB: number; cpuPercent: number }[]> {
  const a = pids.map(procUsage);
  await Bun.sleep(seconds * 1000);
  const b = pids.map(procUsage);
  return pids.map((_, i) => ({ rssMiB: b[i]!.rssMiB, cpuPercent: ((b[i]!.cpuTicks - a[i]!.cpuTicks) / USER_HZ / seconds) * 100 }));
}

export function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const fmtMs = (x: number) => `${x.toFixed(1).padStart(7)} ms`;
