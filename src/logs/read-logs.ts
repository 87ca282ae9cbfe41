// ReadLogs: a container's log file as `kubectl logs` shows it — the kubelet's ReadLogs
// (k/k@1.24 pkg/kubelet/kuberuntime/logs/logs.go), over the LogFiles seam and a Clock.
//
// The loop:
//   open the file, seek to where the last `tail` lines begin (tail.ts), then
//   read ─▶ split into lines ─▶ parse ─▶ join partials ─▶ filter (since) ─▶ format ─▶ cut (limitBytes)
//   at the end of the file:
//     not following                  write a last incomplete line if there is one, and end;
//     following, the file rotated    (another inode at the path) read the old file to its end, then
//                                    go on from the start of the new one;
//     following, container exited    read once more to the end (what it wrote before it exited) and end
//                                    (the runtime is asked at most once per logForceCheckPeriod);
//     following, running             wait for a change: a watch event on the file's directory, or
//                                    logForceCheckPeriod (1 s) without one, whichever is first.
//   The caller's AbortSignal (the client went away) ends the wait and the read at once; the watch and
//   the file are closed on every way out.
//
// Output: each logical line (P fragments joined with the F that completes them, per stream) with its
// newline; stdout and stderr interleaved in the order they were written, as the kubelet writes both
// to one response. With `timestamps` each line is prefixed with its time (RFC3339NanoFixed) and a
// space; `since` skips lines written before it (by the line's first fragment); `limitBytes` counts
// what is written, prefixes included, and cuts the last line short. A line that parses as neither
// format is skipped and reported through onMalformed — the kubelet logs it and goes on.
import type { Clock } from "../util";
import { formatLogTime, logTimeBefore, MalformedLineError, parseLogLine, type LogStream, type LogTime } from "./log-line";
import type { Closer, LogFile, LogFiles } from "./log-files";
import type { LogOptions } from "./log-options";
import { findTailStart } from "./tail";

/** The kubelet's logForceCheckPeriod: re-check the file this often even without a watch event. */
export const LOG_FORCE_CHECK_MS = 1000;
const READ_BLOCK = 64 * 1024;
/**
 * The longest physical line kept whole. Runtimes split lines at 16 KiB (containerd's
 * max_container_log_line_size), so only a file that is not a log comes near it; past it the line is
 * dropped up to its newline, noted as malformed.
 */
export const MAX_LINE_BYTES = 1024 * 1024;
/** The longest logical line joined in memory; past it the fragments are written out as they come. */
export const MAX_JOINED_BYTES = 1024 * 1024;

export interface ReadLogsDeps {
  files: LogFiles;
  clock: Clock;
  /**
   * Whether the container still runs, asked at the end of the file when following (the kubelet asks
   * the runtime: ContainerStatus). A rejection counts as "not running": the container is gone.
   */
  isRunning(): Promise<boolean>;
  /** A skipped line, with what was wrong with it. */
  onMalformed?(note: string): void;
}

const NL = 0x0a;
const NEWLINE = new Uint8Array([NL]);
const encoder = new TextEncoder();

interface Pending {
  time: LogTime;
  parts: Uint8Array[];
  size: number;
  /** Some of it was already written (it outgrew MAX_JOINED_BYTES): no prefix again, no since check. */
  started: boolean;
  skip: boolean;
}

/** An opened log: `lines` yields the output, chunk by chunk (each a whole number of lines while they fit). */
export interface OpenedLogs {
  lines: AsyncGenerator<Uint8Array, void, undefined>;
}

/**
 * Opens `path` and finds the tail's start; an error here (no such file) is the caller's to answer
 * before any byte is sent. Reading starts when `lines` is first pulled.
 */
export async function openLogs(path: string, opts: LogOptions, deps: ReadLogsDeps, signal: AbortSignal): Promise<OpenedLogs> {
  const file = await deps.files.open(path);
  let start: number;
  try {
    start = opts.tail >= 0 ? await findTailStart(file, await file.size(), opts.tail) : 0;
  } catch (err) {
    await file.close();
    throw err;
  }
  return { lines: readFrom(path, file, start, opts, deps, signal) };
}

async function* readFrom(
  path: string,
  first: LogFile,
  start: number,
  opts: LogOptions,
  deps: ReadLogsDeps,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array, void, undefined> {
  let file = first;
  let pos = start;
  let watcher: Closer | undefined;
  let wake: (() => void) | undefined;
  let changed = false;
  const onChange = () => {
    changed = true;
    wake?.();
  };
  const onAbort = () => wake?.();
  signal.addEventListener("abort", onAbort);

  let remain = opts.bytes >= 0 ? opts.bytes : Number.POSITIVE_INFINITY;
  let carry: Uint8Array[] = [];
  let carrySize = 0;
  let dropping = false;
  const pending = new Map<LogStream, Pending>();
  let out: Uint8Array[] = [];
  let outSize = 0;
  let exited = false;
  let rotated = false;
  let checkedAt = Number.NEGATIVE_INFINITY;
  const buf = new Uint8Array(READ_BLOCK);

  /** Queues bytes for output, cut at the byte limit. Returns false once the limit is reached. */
  const emit1 = (p: Uint8Array): boolean => {
    if (remain <= 0) return false;
    const piece = p.length > remain ? p.subarray(0, remain) : p;
    // Copied: `buf` is reused by the next read.
    out.push(piece.slice());
    outSize += piece.length;
    remain -= piece.length;
    return remain > 0;
  };
  const emit = (parts: Uint8Array[]): boolean => {
    for (const p of parts) if (!emit1(p)) return false;
    return remain > 0;
  };
  const prefix = (t: LogTime) => (opts.timestamps ? [encoder.encode(`${formatLogTime(t)} `)] : []);

  /** A logical line's fragments so far (the time prefix before its first), then `rest`. Returns false once the limit is reached. */
  const emitFragments = (p: Pending, ...rest: Uint8Array[]): boolean => emit([...(p.started ? [] : prefix(p.time)), ...p.parts, ...rest]);

  /** One complete physical line (without its newline). Returns false once the byte limit is reached. */
  const onLine = (line: Uint8Array): boolean => {
    let parsed;
    try {
      parsed = parseLogLine(line);
    } catch (err) {
      if (!(err instanceof MalformedLineError)) throw err;
      deps.onMalformed?.(`${path}: skipped a line that is not a log line (${err.message}): ${JSON.stringify(new TextDecoder().decode(line.subarray(0, 80)))}`);
      return true;
    }
    let p = pending.get(parsed.stream);
    if (!p) {
      p = { time: parsed.time, parts: [], size: 0, started: false, skip: opts.since !== undefined && logTimeBefore(parsed.time, opts.since) };
    }
    if (parsed.partial) {
      p.parts.push(parsed.content.slice());
      p.size += parsed.content.length;
      pending.set(parsed.stream, p);
      if (p.size <= MAX_JOINED_BYTES) return true;
      // Too long to join: write what there is, and the rest as it comes.
      const more = p.skip || emitFragments(p);
      p.started = true;
      p.parts = [];
      p.size = 0;
      return more;
    }
    pending.delete(parsed.stream);
    if (p.skip) return true;
    // The common line — whole, no prefix — without building the parts' list.
    if (p.parts.length === 0 && (p.started || !opts.timestamps)) return emit1(parsed.content) && emit1(NEWLINE);
    return emitFragments(p, parsed.content, NEWLINE);
  };

  /**
   * At the end of what there is to read: the fragments of a line the runtime never completed are
   * written as they are, without a newline. The kubelet's ReadLogs writes each P fragment as it reads
   * it, so `printf 'a\nb'` reads "a\nb" there (containerd logs the "b" as a P line that no F follows).
   */
  const flushPending = (): void => {
    for (const [stream, p] of pending) {
      pending.delete(stream);
      if (p.skip || p.parts.length === 0) continue;
      if (!emitFragments(p)) return;
    }
  };

  /** Splits a block into lines; the bytes after its last newline wait for the next block. */
  const onBlock = (block: Uint8Array): boolean => {
    let from = 0;
    for (;;) {
      const nl = block.indexOf(NL, from);
      if (nl < 0) break;
      const tail = block.subarray(from, nl);
      from = nl + 1;
      if (dropping) {
        dropping = false;
        continue;
      }
      let line = tail;
      if (carrySize > 0) {
        line = new Uint8Array(carrySize + tail.length);
        let off = 0;
        for (const c of carry) {
          line.set(c, off);
          off += c.length;
        }
        line.set(tail, off);
        carry = [];
        carrySize = 0;
      }
      if (!onLine(line)) return false;
    }
    const rest = block.subarray(from);
    if (rest.length > 0 && !dropping) {
      carry.push(rest.slice());
      carrySize += rest.length;
      if (carrySize > MAX_LINE_BYTES) {
        deps.onMalformed?.(`${path}: skipped a line longer than ${MAX_LINE_BYTES} bytes`);
        carry = [];
        carrySize = 0;
        dropping = true;
      }
    }
    return true;
  };

  /** Waits for a watch event, the periodic check or the abort. */
  const waitForChange = async (): Promise<void> => {
    if (changed) {
      changed = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = deps.clock.setTimer(LOG_FORCE_CHECK_MS, () => done());
      const done = () => {
        timer.cancel();
        wake = undefined;
        resolve();
      };
      wake = done;
      if (signal.aborted) done();
    });
    changed = false;
  };

  const take = (): Uint8Array => {
    const chunk = new Uint8Array(outSize);
    let off = 0;
    for (const o of out) {
      chunk.set(o, off);
      off += o.length;
    }
    out = [];
    outSize = 0;
    return chunk;
  };

  try {
    for (;;) {
      if (signal.aborted) return;
      const n = await file.read(buf, pos);
      if (n > 0) {
        pos += n;
        const more = onBlock(buf.subarray(0, n));
        if (outSize > 0) yield take();
        if (!more) return;
        continue;
      }
      // The end of the file.
      if (!opts.follow) {
        // The kubelet writes an incomplete last line as it is ("Incomplete line in log file").
        if (carrySize > 0 && !dropping) {
          const last = carry.length === 1 ? carry[0]! : Buffer.concat(carry);
          carry = [];
          carrySize = 0;
          onLine(last);
        }
        flushPending();
        if (outSize > 0) yield take();
        return;
      }
      if (rotated) {
        // The old file is read to its end: go on with the one now at the path.
        let next: LogFile;
        try {
          next = await deps.files.open(path);
        } catch {
          // Not there yet (renamed aside, not yet re-created): keep waiting on the old one.
          rotated = false;
          continue;
        }
        await file.close();
        file = next;
        pos = 0;
        rotated = false;
        // A line the old file left unfinished is not continued in the new one.
        carry = [];
        carrySize = 0;
        dropping = false;
        continue;
      }
      if (exited) {
        flushPending();
        if (outSize > 0) yield take();
        return;
      }
      const id = await deps.files.idOf(path);
      if (id !== undefined && id !== file.id) {
        // Rotated: read whatever reached the old file before the switch, then switch.
        rotated = true;
        continue;
      }
      // The kubelet asks the runtime at every end of file; a container printing a thousand lines a
      // second would make that a thousand ContainerStatus calls per follower. Asked at most once per
      // logForceCheckPeriod instead: an exit is seen at most a second later.
      if (deps.clock.now() - checkedAt >= LOG_FORCE_CHECK_MS) {
        checkedAt = deps.clock.now();
        if (!(await deps.isRunning().catch(() => false))) {
          // It exited: what it wrote before is in the file; read to the end once more and stop.
          exited = true;
          continue;
        }
      }
      // Watch only once the end is reached: a read that never follows pays for no watch.
      watcher ??= deps.files.watch(path, onChange);
      await waitForChange();
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    watcher?.close();
    await file.close().catch(() => undefined);
  }
}
