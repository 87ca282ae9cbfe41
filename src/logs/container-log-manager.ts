// ContainerLogManager: the kubelet's container log rotation (k/k@1.24.1 pkg/kubelet/logs/container_log_manager.go).
// The runtime writes each container's output to one file, <pod-logs-dir>/<ns>_<name>_<uid>/<container>/<restart>.log,
// and never rotates it; the kubelet does, and so does this loop, every logMonitorPeriod (10 s):
//
//   for each running container (CRI ListContainers, then ContainerStatus for its log path):
//     stat the log; missing → ReopenContainerLog (a rotation cut short lost it), stat again;
//     size < containerLogMaxSize → nothing;
//     otherwise rotate, in the kubelet's steps, over the rotated files `<log>.*`:
//       1. remove the unused ones: `*.tmp` leftovers of a compression cut short, and uncompressed
//          files whose `.gz` twin exists (compressed, not yet removed);
//       2. remove the oldest (by name, which is by time) so that at most containerLogMaxFiles − 2
//          remain: with the live file and the one about to be rotated that makes MaxFiles;
//       3. gzip every uncompressed rotated file to `<file>.gz`, written as `<file>.tmp` and renamed
//          (the kubelet's tmpSuffix), then remove the original;
//       4. rename the live log to `<log>.<YYYYMMDD-hhmmss>` (Go's "20060102-150405", local time) and
//          ReopenContainerLog, so that the runtime starts a new live file; if that fails, rename it
//          back so that the next round tries again.
//   So a container's files are `0.log`, `0.log.20240101-120000` (the newest rotated, uncompressed:
//   a `kubectl logs` reading it is not cut short) and older `0.log.….gz`, at most MaxFiles in all.
//
// A failure with one container is logged and the others go on. A log path the runtime reports outside
// --pod-logs-dir is left alone: the agent never renames or removes files outside its roots.
// src/logs reads only the live file and follows a rotation (a new inode at the path), as the kubelet's
// ReadLogs does.
import { createReadStream, createWriteStream, readdirSync, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import type { CriClient } from "../cri";
import { assertInside, type Clock, errorMessage, type Logger, runUntil } from "../util";

/** The kubelet's logMonitorPeriod. */
export const LOG_MONITOR_PERIOD_MS = 10_000;

/** KubeletConfiguration containerLogMaxSize / containerLogMaxFiles (v1beta1 defaults 10Mi and 5). */
export interface ContainerLogPolicy {
  maxSizeBytes: number;
  /** At least 2: the live file and one rotated. */
  maxFiles: number;
}

export const DEFAULT_CONTAINER_LOG_POLICY: ContainerLogPolicy = { maxSizeBytes: 10 * 1024 * 1024, maxFiles: 5 };

const COMPRESS_SUFFIX = ".gz";
const TMP_SUFFIX = ".tmp";

/** The CRI calls log rotation makes: the CriClient on a node, a fake in tests. */
export type ContainerLogRuntime = Pick<CriClient, "listContainers" | "containerStatus" | "reopenContainerLog">;

export interface ContainerLogManagerOptions {
  runtime: ContainerLogRuntime;
  policy: ContainerLogPolicy;
  /** --pod-logs-dir: only logs below it are rotated. */
  podLogsRoot: string;
  clock: Clock;
  log: Logger;
  /** LOG_MONITOR_PERIOD_MS by default. */
  periodMs?: number;
}

/** Go's "20060102-150405" of a time, in local time as Go's time.Now().Format gives it. */
export function rotationTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** The rotated files of a live log: `<log>.*`, full paths, sorted (oldest first). */
function rotatedFiles(log: string): string[] {
  const dir = dirname(log);
  const prefix = `${basename(log)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix))
    .map((n) => join(dir, n))
    .sort();
}

/** filterUnusedLogs: temporary files, and uncompressed files that a `.gz` twin replaced, are unused. */
export function unusedLogs(logs: string[]): string[] {
  const all = new Set(logs);
  return logs.filter((l) => l.endsWith(TMP_SUFFIX) || (!l.endsWith(COMPRESS_SUFFIX) && all.has(l + COMPRESS_SUFFIX)));
}

/** removeExcessLogs: the oldest of the (sorted) rotated files beyond maxFiles − 2. */
export function excessLogs(sorted: string[], maxFiles: number): string[] {
  const keep = Math.max(maxFiles - 2, 0);
  return sorted.slice(0, Math.max(sorted.length - keep, 0));
}

/**
 * The kubelet's logManager.Clean: removes a container's live log and its rotated files, which must be
 * inside `root` (PathEscapeError otherwise). Container GC calls it before removing the container.
 */
export function cleanContainerLogs(root: string, log: string): void {
  assertInside(root, log);
  for (const f of [log, ...rotatedFiles(log)]) removeIfExists(f);
}

function removeIfExists(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
}

export class ContainerLogManager {
  readonly periodMs: number;

  constructor(private readonly o: ContainerLogManagerOptions) {
    this.periodMs = o.periodMs ?? LOG_MONITOR_PERIOD_MS;
  }

  /** Rotates every period (wait.Forever: the first time at once) until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await runUntil(this.o.clock, this.periodMs, signal, () => this.rotateLogs().catch((err) => this.o.log.error("container log rotation failed", { err })));
  }

  /** One round over the running containers. */
  async rotateLogs(): Promise<void> {
    const { runtime } = this.o;
    const containers = await runtime.listContainers({ state: { state: "CONTAINER_RUNNING" } });
    for (const c of containers) {
      if (c.state !== "CONTAINER_RUNNING") continue;
      try {
        const path = (await runtime.containerStatus(c.id)).logPath;
        if (!path) continue;
        assertInside(this.o.podLogsRoot, path);
        let size = fileSize(path);
        if (size === undefined) {
          // A rotation cut short (the agent stopped between the rename and the reopen) left the runtime
          // writing to the renamed file: have it open the path again.
          await runtime.reopenContainerLog(c.id);
          size = fileSize(path);
          if (size === undefined) throw new Error(`the log ${path} is still missing after ReopenContainerLog`);
        }
        if (size < this.o.policy.maxSizeBytes) continue;
        await this.rotateLog(c.id, path);
      } catch (err) {
        this.o.log.warn("container log rotation: rotating a container's log failed", { container: c.metadata?.name, id: c.id.slice(0, 12), err });
      }
    }
  }

  private async rotateLog(id: string, log: string): Promise<void> {
    let logs = rotatedFiles(log);
    const unused = new Set(unusedLogs(logs));
    for (const l of unused) removeIfExists(l);
    logs = logs.filter((l) => !unused.has(l));
    const excess = excessLogs(logs, this.o.policy.maxFiles);
    for (const l of excess) removeIfExists(l);
    logs = logs.slice(excess.length);
    for (const l of logs) if (!l.endsWith(COMPRESS_SUFFIX)) await compressLog(l);
    const rotated = `${log}.${rotationTimestamp(this.o.clock.now())}`;
    renameSync(log, rotated);
    try {
      await this.o.runtime.reopenContainerLog(id);
    } catch (err) {
      // Put it back, so that the next round rotates it again (if the agent dies first, the missing
      // log is reopened by the next round and this file stays as a rotated one).
      try {
        renameSync(rotated, log);
      } catch (back) {
        this.o.log.error("container log rotation: renaming the rotated log back failed, the runtime writes to the rotated file", {
          path: log,
          rotated,
          err: back,
        });
      }
      throw new Error(`failed to reopen container log ${id.slice(0, 12)}: ${errorMessage(err)}`);
    }
    this.o.log.debug("container log rotation: rotated", { path: log, rotated: basename(rotated) });
  }
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** compressLog: `<log>` → `<log>.gz`, through `<log>.tmp`, then the original removed. */
async function compressLog(log: string): Promise<void> {
  const tmp = log + TMP_SUFFIX;
  try {
    await pipeline(createReadStream(log), createGzip(), createWriteStream(tmp, { mode: 0o644 }));
    renameSync(tmp, log + COMPRESS_SUFFIX);
  } finally {
    removeIfExists(tmp);
  }
  unlinkSync(log);
}
