// The OOM watcher (the kubelet's pkg/kubelet/oom, which streams cadvisor's oomparser): every period it
// drains the kernel's log, turns its records into OOM kills (OomParser) and reports each kill once:
// counted by scope (nodeagent_oom_kills_total{scope="container"|"system"}), logged, and handed to
// onOom (the node records the event, src/events). A kill is "system" when the cgroup that ran out of memory is
// the root one: the node itself was out of memory, and the kubelet then records a Node Warning event
// SystemOOM "System OOM encountered, victim process: <name>, pid: <pid>". A kill inside a cgroup's limit
// (a container over its memory limit) is the runtime's to report: ContainerStatus reason OOMKilled,
// which the agent shows as it shows any reason.
//
// Kills logged before the agent started are history, not news: they are skipped (the kubelet's watcher
// reads the whole buffer and would report them again at each restart). /dev/kmsg is read non-blocking
// on a timer rather than streamed, so stopping the agent never waits on a read (src/oom/kmsg.ts).
import { readFileSync } from "node:fs";
import { type Clock, type Logger, runUntil } from "../util";
import type { KernelLog } from "./kmsg";
import { OomParser, type OomInstance } from "./oom-parser";

/** The cgroup of a kill that was the whole node's (cadvisor's recordEventContainerName). */
export const SYSTEM_OOM_CONTAINER = "/";
/** How often the kernel's log is read; one non-blocking read answers EAGAIN when nothing is new. */
export const OOM_POLL_PERIOD_MS = 1_000;

export interface OomWatcherOptions {
  /** Opens the kernel's log (new KmsgReader() on a node); a failure turns the watcher off with a warning. */
  openKernelLog: () => KernelLog;
  clock: Clock;
  log: Logger;
  /** Kills logged before this (µs since boot) are skipped; the uptime at construction by default. */
  startUsecSinceBoot?: number;
  periodMs?: number;
  /** Each kill once, after it was counted and logged: the metric and the event. */
  onOom?: (kill: OomInstance, system: boolean) => void;
}

/** Microseconds since boot, from /proc/uptime (the clock /dev/kmsg stamps records with, near enough). */
export function uptimeUsec(): number {
  return Math.floor(Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 1e6);
}

export class OomWatcher {
  private readonly parser = new OomParser();
  private readonly startUsec: number;
  private kernelLog: KernelLog | undefined;
  readonly counts = { container: 0, system: 0 };

  constructor(private readonly o: OomWatcherOptions) {
    this.startUsec = o.startUsecSinceBoot ?? uptimeUsec();
  }

  /** Reads the kernel's log every period until the signal aborts; without one (no /dev/kmsg), warns once and returns. */
  async run(signal: AbortSignal): Promise<void> {
    try {
      this.kernelLog = this.o.openKernelLog();
    } catch (err) {
      this.o.log.warn("OOM watcher is off: cannot read the kernel's log", { err });
      return;
    }
    try {
      await runUntil(this.o.clock, this.o.periodMs ?? OOM_POLL_PERIOD_MS, signal, async () => void this.poll());
    } finally {
      this.kernelLog.close();
    }
  }

  /** One drain of the kernel's log; the kills it reported. */
  poll(): OomInstance[] {
    const reported: OomInstance[] = [];
    let records;
    try {
      records = this.kernelLog?.drain() ?? [];
    } catch (err) {
      this.o.log.warn("OOM watcher: reading the kernel's log failed", { err });
      return reported;
    }
    for (const r of records) {
      const kill = this.parser.feed(r);
      if (!kill || kill.usecSinceBoot < this.startUsec) continue;
      const system = kill.oomCgroup === SYSTEM_OOM_CONTAINER;
      if (system) {
        this.counts.system++;
        this.o.log.warn("System OOM encountered", { process: kill.processName, pid: kill.pid });
      } else {
        this.counts.container++;
        this.o.log.info("OOM kill in a container's cgroup", { cgroup: kill.oomCgroup, process: kill.processName, pid: kill.pid, taskCgroup: kill.taskCgroup });
      }
      this.o.onOom?.(kill, system);
      reported.push(kill);
    }
    return reported;
  }
}
