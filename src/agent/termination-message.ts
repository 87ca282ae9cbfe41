// TerminationMessages: the message of an exited container's terminated state, as the kubelet's
// toKubeContainerStatus / getTerminationMessage / readLastStringFromContainerLogs make it
// (k/k@1.24.1 kuberuntime_container.go):
//   - the file at terminationMessagePath (mounted from <podDir>/containers/<name>/<restart>-termination-log,
//     runtime-config.ts): its last 4096 bytes (MaxContainerTerminationMessageLength, tail.ReadAtMost);
//   - with terminationMessagePolicy FallbackToLogsOnError, when that file is missing or empty and the
//     container failed (a non-zero exit, not ContainerCannotRun): the last 80 lines of its log, at
//     most their last 2048 bytes (MaxContainerTerminationMessageLogLines / LogLength);
//   - appended to the runtime's own message after ": " when the runtime gave one.
// The paths are the agent's own (from the pod, the container's name and restart count), never the
// runtime's Mounts or LogPath, which any CRI client could have written. An exited instance never
// changes, so its message is read once and kept until the container is removed (prune).
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { Pod } from "kubernetes-types/core/v1";
import type { ContainerStatus } from "../cri";
import { parseLogLine } from "../logs";
import { confinedPath, errorMessage } from "../util";
import * as ann from "./labels";
import { containerLogDir, terminationLogDir, type RuntimeConfigOptions } from "./runtime-config";

export const MAX_TERMINATION_MESSAGE_BYTES = 4096;
export const MAX_TERMINATION_MESSAGE_LOG_LINES = 80;
export const MAX_TERMINATION_MESSAGE_LOG_BYTES = 2048;
/** How much of the log's end is read to find its last lines (a log line is at most 16 KiB in containerd's default). */
const LOG_TAIL_READ_BYTES = 256 * 1024;

/** The last `max` bytes of the file (ReadAtMost); undefined when it does not exist. */
export function readTail(path: string, max: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, max);
    const buf = Buffer.alloc(n);
    let off = 0;
    while (off < n) {
      const r = readSync(fd, buf, off, n - off, size - n + off);
      if (r === 0) break;
      off += r;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}

/** The content of the last `lines` log lines of a CRI log file, at most its last `maxBytes` bytes. */
export function lastLogLines(path: string, lines: number, maxBytes: number): string {
  const tail = readTail(path, LOG_TAIL_READ_BYTES);
  if (!tail) return "";
  const raw = tail.toString("latin1").split("\n");
  if (raw[raw.length - 1] === "") raw.pop();
  // A read that starts mid-file starts mid-line: the first piece is dropped unless it is the whole file.
  if (tail.byteLength === LOG_TAIL_READ_BYTES) raw.shift();
  const parts: Buffer[] = [];
  let count = 0;
  for (let i = raw.length - 1; i >= 0 && count < lines; i--) {
    let line;
    try {
      line = parseLogLine(Buffer.from(raw[i]!, "latin1"));
    } catch {
      continue; // a malformed line is skipped, as the kubelet's log reader does
    }
    // A full line ends with its newline; a partial one (P) continues in the next.
    parts.unshift(line.partial ? Buffer.from(line.content) : Buffer.concat([line.content, Buffer.from("\n")]));
    if (!line.partial) count++;
  }
  const all = Buffer.concat(parts);
  return all.subarray(Math.max(0, all.byteLength - maxBytes)).toString("utf8");
}

export class TerminationMessages {
  private readonly cache = new Map<string, string>();

  constructor(private readonly opts: RuntimeConfigOptions) {}

  /** The terminated state's message of an exited instance ("" for none). */
  get(pod: Pod, c: ContainerStatus): string {
    if (c.state !== "CONTAINER_EXITED") return c.message;
    const known = this.cache.get(c.id);
    if (known !== undefined) return known;
    const message = this.read(pod, c);
    this.cache.set(c.id, message);
    return message;
  }

  /** Forgets every container not in `live`. */
  prune(live: ReadonlySet<string>): void {
    for (const id of [...this.cache.keys()]) if (!live.has(id)) this.cache.delete(id);
  }

  private read(pod: Pod, c: ContainerStatus): string {
    const name = c.metadata?.name ?? "";
    const restart = c.annotations[ann.CONTAINER_RESTART_COUNT] ?? "0";
    const path = c.annotations[ann.CONTAINER_TERMINATION_MESSAGE_PATH] ?? "";
    const fallbackToLogs =
      c.annotations[ann.CONTAINER_TERMINATION_MESSAGE_POLICY] === "FallbackToLogsOnError" && c.exitCode !== 0 && c.reason !== "ContainerCannotRun";
    let message = "";
    let checkLogs = fallbackToLogs;
    if (path && /^\d+$/.test(restart)) {
      try {
        const data = readTail(confinedPath(terminationLogDir(pod, name, this.opts), `${restart}-termination-log`), MAX_TERMINATION_MESSAGE_BYTES);
        if (data) {
          message = data.toString("utf8");
          checkLogs = fallbackToLogs && data.byteLength === 0;
        }
      } catch (err) {
        // A directory: an instance created before the agent made the file (containerd made the
        // missing mount source a directory), which holds no message; as a missing file.
        if ((err as NodeJS.ErrnoException).code !== "EISDIR") {
          message = `Error on reading termination log ${path}: ${errorMessage(err)}`;
          checkLogs = false;
        }
      }
    }
    if (checkLogs && /^\d+$/.test(restart)) {
      try {
        message = lastLogLines(
          confinedPath(containerLogDir(pod, name, this.opts), `${restart}.log`),
          MAX_TERMINATION_MESSAGE_LOG_LINES,
          MAX_TERMINATION_MESSAGE_LOG_BYTES,
        );
      } catch (err) {
        message = `Error on reading termination message from logs: ${errorMessage(err)}`;
      }
    }
    if (!message) return c.message;
    return c.message ? `${c.message}: ${message}` : message;
  }
}
