// The static pod directory (--pod-manifest-path): the kubelet's file source (pkg/kubelet/config/file.go,
// file_linux.go) with its file selection, inotify watch and periodic rescan, plus what we do past it:
// a bad edit keeps the last valid pod, a half-written file waits until it settles, and backup or
// editor files are reported instead of run.
import { createHash } from "node:crypto";
import { watch, type Stats } from "node:fs";
import { readFile, readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { type LoadResult, type ManifestError, type PodLoader } from "../manifest/types";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { Mutex } from "../util/queue";
import { podKey, type SourceReport } from "./pod-config";
import type { PodSource } from "./types";
import { SnapshotEmitter } from "./snapshot-emitter";

/** The kubelet's maxConfigLength: a manifest over 10 MB is refused. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/**
 * Names that are almost always an editor's or package manager's leftover. The kubelet runs them as
 * pods (any name not starting with a dot is read), which starts a stale second copy of a control
 * plane component (kubernetes#136962); we report them and run nothing.
 */
export const BACKUP_SUFFIXES: readonly string[] = ["~", ".bak", ".orig", ".swp", ".swo", ".tmp", ".dpkg-old", ".dpkg-new", ".rpmsave", ".rpmnew"];

export const BACKUP_FILE_MESSAGE = "backup or editor file: not run; the kubelet would run it as a pod, see kubernetes#136962";

export function isBackupFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return BACKUP_SUFFIXES.some((s) => lower.endsWith(s));
}

export interface FileSourceOptions {
  /** A directory of manifests, or a single manifest file. */
  path: string;
  nodeName: string;
  loader: PodLoader;
  clock: Clock;
  log: Logger;
  /** Full rescan period; the kubelet's fileCheckFrequency, 20 s. */
  checkFrequencyMs?: number;
  /** Watch events are gathered this long before one rescan. */
  debounceMs?: number;
  /** A manifest that fails to load within this long of changing is taken as half-written. */
  settleMs?: number;
  /** fs.watch, or a stand-in for tests of the watch's failures. */
  watch?: WatchFn;
}

/** The part of fs.watch this source uses. */
export type WatchFn = (path: string, onEvent: (name: string | null) => void) => Watcher;
export interface Watcher {
  close(): void;
  on(event: "error", listener: (e: unknown) => void): unknown;
}

const fsWatch: WatchFn = (path, onEvent) =>
  watch(path, { persistent: false }, (_event, name) => onEvent(name === null ? null : String(name)));

/** What we know of one manifest file, kept between scans. */
interface FileRecord {
  /** sha256 of the bytes last read (or a marker when they could not be read). */
  hash: string;
  /**
   * The file's inode, size, mtime and ctime when it was last read: while they are unchanged the bytes
   * are not read again (any write moves ctime), so a scan of a large directory costs one stat a file.
   */
  statKey?: string;
  /** When the current content was first seen, by the agent's clock. */
  changedAt: number;
  /** What loading the current content gave. */
  result: LoadResult;
  /** The load failed for a reason that waiting cannot fix (unreadable, too large): no settling. */
  final: boolean;
  /** The pods of the last content that loaded: what the file contributes, even after a bad edit. */
  pods: Pod[];
  /** The errors of the current content once it settled. */
  errors: ManifestError[];
  /** False while a failed load may be a half-written file. */
  settled: boolean;
}

type PathKind = "dir" | "file" | "missing" | "other" | "error";

/** Where the watch is and what it covers; the inode tells a deleted and recreated path apart. */
interface WatchTarget {
  kind: "dir" | "file";
  ino: number;
}

const RETRY_MS = 1_000;
const MAX_RETRY_MS = 20_000;

export class FileSource implements PodSource {
  readonly name = "file" as const;
  private readonly path: string;
  private readonly nodeName: string;
  private readonly loader: PodLoader;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly emitter: SnapshotEmitter;
  private readonly checkFrequencyMs: number;
  private readonly debounceMs: number;
  private readonly settleMs: number;
  private readonly watchFn: WatchFn;
  private readonly mutex = new Mutex();

  private readonly files = new Map<string, FileRecord>();
  private everComplete = false;
  private pathKind: PathKind = "missing";
  private pathIno = 0;

  private started = false;
  private stopped = false;
  private pumping = false;
  private again = false;

  private periodicTimer: Timer | undefined;
  private debounceTimer: Timer | undefined;
  private settleTimer: Timer | undefined;
  private retryTimer: Timer | undefined;
  private watcher: Watcher | undefined;
  private watched: WatchTarget | undefined;
  private watchFailures = 0;
  private lastWatchFailureAt = Number.NEGATIVE_INFINITY;

  /** Counters for tests and /metrics. */
  readonly stats = { scans: 0, reads: 0, watchEvents: 0, watchFailures: 0 };

  constructor(opts: FileSourceOptions) {
    // The kubelet trims trailing separators before watching the path.
    this.path = opts.path.length > 1 ? opts.path.replace(/\/+$/, "") : opts.path;
    this.nodeName = opts.nodeName;
    this.loader = opts.loader;
    this.clock = opts.clock;
    this.log = opts.log;
    this.emitter = new SnapshotEmitter(opts.log);
    this.checkFrequencyMs = opts.checkFrequencyMs ?? 20_000;
    // Short: an editor's save arrives as a burst within microseconds, and a file that does not
    // load yet is left to settle anyway; every millisecond here is a millisecond of pod start.
    this.debounceMs = opts.debounceMs ?? 2;
    this.settleMs = opts.settleMs ?? 1_000;
    this.watchFn = opts.watch ?? fsWatch;
  }

  /** True while an inotify watch covers the path. */
  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /** True while a background rescan runs (tests wait for it to finish). */
  get busy(): boolean {
    return this.pumping;
  }

  /**
   * Reads the path now, then after watch events and every checkFrequency (the kubelet's periodic
   * listConfig). `onSnapshot` gets the first snapshot, then one whenever the pods or errors changed.
   */
  start(onSnapshot: (s: SourceReport) => void): void {
    if (this.started) throw new Error("FileSource already started");
    this.started = true;
    this.emitter.listen(onSnapshot);
    this.log.info(`watching static pod path ${this.path}`);
    this.armPeriodic();
    void this.pump();
  }

  stop(): void {
    this.stopped = true;
    for (const t of [this.periodicTimer, this.debounceTimer, this.settleTimer, this.retryTimer]) t?.cancel();
    this.closeWatch();
  }

  /** One full read of the path; serialised with the background reads. */
  scan(): Promise<SourceReport> {
    return this.mutex.run(() => this.readAll());
  }

  private async readAll(): Promise<SourceReport> {
    this.stats.scans++;
    const now = this.clock.now();
    let st: Stats;
    try {
      st = await stat(this.path);
    } catch (e) {
      if (errno(e) === "ENOENT") return this.missing();
      this.pathKind = "error";
      return this.unreadable(`cannot read the manifest path: ${message(e)}`);
    }
    this.pathIno = st.ino;
    if (st.isFile()) {
      this.pathKind = "file";
      // A single file given explicitly is run whatever its name: choosing it was deliberate.
      if (!(await this.readOne(this.path, now))) return this.missing();
      this.forgetAllBut(new Set([this.path]));
      this.everComplete = true;
      return this.assemble([this.path], new Map());
    }
    if (!st.isDirectory()) {
      this.pathKind = "other";
      return this.unreadable("the manifest path is neither a directory nor a regular file");
    }
    this.pathKind = "dir";
    let names: string[];
    try {
      names = await readdir(this.path);
    } catch (e) {
      if (errno(e) === "ENOENT") return this.missing(); // deleted since the stat
      return this.unreadable(`cannot list the manifest directory: ${message(e)}`);
    }
    // The kubelet globs "[^.]*": every name not starting with a dot, sorted, no extension filter.
    names = names.filter((n) => !n.startsWith(".")).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const order: string[] = [];
    const entryErrors = new Map<string, ManifestError[]>();
    for (const name of names) {
      const file = join(this.path, name);
      if (isBackupFileName(name)) {
        entryErrors.set(file, [documentError(file, BACKUP_FILE_MESSAGE)]);
        order.push(file);
        continue;
      }
      let fst: Stats;
      try {
        fst = await stat(file);
      } catch (e) {
        if (errno(e) === "ENOENT") continue; // removed since the listing, or a dangling symlink
        entryErrors.set(file, [documentError(file, `cannot stat: ${message(e)}`)]);
        order.push(file);
        continue;
      }
      if (fst.isDirectory()) {
        this.log.debug(`not recursing into ${file}`);
        continue;
      }
      order.push(file);
      if (!fst.isFile()) {
        entryErrors.set(file, [documentError(file, "not a regular file: ignored")]);
        this.files.delete(file);
        continue;
      }
      if (!(await this.readOne(file, now, fst))) order.pop(); // removed since the stat
    }
    // A file that is gone takes its pod with it; so does one renamed to a backup name.
    this.forgetAllBut(new Set(order));
    this.everComplete = true;
    return this.assemble(order, entryErrors);
  }

  /**
   * Reads and loads one manifest, updating its record; unchanged bytes are not loaded again.
   * False when the file no longer exists.
   */
  private async readOne(file: string, now: number, st?: Stats): Promise<boolean> {
    const size = st?.size;
    const statKey = st ? `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : undefined;
    const known = this.files.get(file);
    if (statKey !== undefined && known?.statKey === statKey && known.settled) return true;
    let hash: string;
    let text: string | undefined;
    let failure: string | undefined;
    if (size !== undefined && size > MAX_MANIFEST_BYTES) {
      hash = `too-large:${size}`;
      failure = `manifest is ${size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`;
    } else {
      try {
        this.stats.reads++;
        const bytes = await readFile(file);
        if (bytes.length > MAX_MANIFEST_BYTES) {
          hash = `too-large:${bytes.length}`;
          failure = `manifest is ${bytes.length} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`;
        } else {
          hash = createHash("sha256").update(bytes).digest("hex");
          text = bytes.toString("utf8");
        }
      } catch (e) {
        if (errno(e) === "ENOENT") {
          this.files.delete(file);
          return false;
        }
        hash = `unreadable:${errno(e) ?? message(e)}`;
        failure = `cannot read: ${message(e)}`;
      }
    }
    let rec = this.files.get(file);
    if (!rec || rec.hash !== hash) {
      const result: LoadResult =
        failure !== undefined ? { ok: false, errors: [documentError(file, failure)] } : this.load(text ?? "", file);
      rec = { hash, changedAt: now, result, final: failure !== undefined, pods: rec?.pods ?? [], errors: rec?.errors ?? [], settled: false };
      this.files.set(file, rec);
    } else if (rec.settled) {
      rec.statKey = statKey;
      return true;
    }
    rec.statKey = statKey;
    if (rec.result.ok) {
      rec.pods = rec.result.pods;
      rec.errors = [];
      rec.settled = true;
    } else if (!rec.final && now - rec.changedAt < this.settleMs) {
      // Changed moments ago and does not load: most likely an editor's save in progress. Keep
      // whatever this file gave before, and look again once it has had time to settle.
      rec.settled = false;
    } else {
      // Bad input loses nothing: the last valid pod of this file stays, the error is reported.
      rec.errors = rec.result.errors;
      rec.settled = true;
    }
    return true;
  }

  private load(text: string, file: string): LoadResult {
    try {
      return this.loader(text, { source: "file", location: file, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, errors: [documentError(file, `cannot load: ${message(e)}`)] };
    }
  }

  /**
   * The snapshot in file order. Two files naming the same pod: the first in sort order wins (as the
   * kubelet's dedupe, kubernetes PR #142028, keeps it) and the later one is an error naming both.
   */
  private assemble(order: readonly string[], entryErrors: ReadonlyMap<string, ManifestError[]>): SourceReport {
    const pods: Pod[] = [];
    const errors: ManifestError[] = [];
    const owner = new Map<string, string>();
    for (const file of order) {
      errors.push(...(entryErrors.get(file) ?? []));
      const rec = this.files.get(file);
      if (!rec) continue;
      errors.push(...rec.errors);
      for (const pod of rec.pods) {
        const key = podKey(pod);
        const first = owner.get(key);
        if (first !== undefined) {
          errors.push({
            file,
            line: 1,
            column: 1,
            field: "metadata.name",
            message: `duplicate pod name "${key}": ${first} already defines it; this file is not run`,
          });
          continue;
        }
        owner.set(key, file);
        pods.push(pod);
      }
    }
    return { source: "file", pods, errors };
  }

  /** The kubelet sends an empty SET for a missing path, so the source still counts as seen. */
  private missing(): SourceReport {
    this.pathKind = "missing";
    this.files.clear();
    this.everComplete = true;
    return { source: "file", pods: [], errors: [] };
  }

  /** The path itself cannot be read: keep every pod we have, report why, and stay unseen if never read. */
  private unreadable(why: string): SourceReport {
    const order = [...this.files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const snap = this.assemble(order, new Map());
    return { ...snap, errors: [documentError(this.path, why), ...snap.errors], complete: this.everComplete };
  }

  private forgetAllBut(keep: ReadonlySet<string>): void {
    for (const f of [...this.files.keys()]) if (!keep.has(f)) this.files.delete(f);
  }

  // ---- background: rescans, watch, timers -------------------------------------------------------

  /** Runs scans one after another until no more were asked for, emitting changed snapshots. */
  private async pump(): Promise<void> {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const snap = await this.scan();
        if (this.stopped) return;
        this.emitter.emit(snap);
        this.afterScan();
      } while (this.again && !this.stopped);
    } catch (e) {
      this.log.error(`static pod path ${this.path}: ${message(e)}`);
    } finally {
      this.pumping = false;
    }
  }


  private afterScan(): void {
    const unsettled = [...this.files.values()].some((r) => !r.settled);
    if (unsettled && !this.settleTimer) {
      this.settleTimer = this.clock.setTimer(this.settleMs, () => {
        this.settleTimer = undefined;
        void this.pump();
      });
    }
    this.ensureWatch();
  }

  private armPeriodic(): void {
    this.periodicTimer = this.clock.setTimer(this.checkFrequencyMs, () => {
      if (this.stopped) return;
      this.armPeriodic();
      void this.pump();
    });
  }

  /** Keeps an inotify watch on the path, as file_linux.go does, re-creating it when the path changed. */
  private ensureWatch(): void {
    if (this.stopped) return;
    const kind = this.pathKind;
    if (this.watcher && (kind !== this.watched?.kind || this.pathIno !== this.watched.ino)) {
      // Deleted, replaced, or turned from a file into a directory: the old watch sees nothing now.
      this.closeWatch();
    }
    if (this.watcher || this.retryTimer) return;
    if (kind === "missing") {
      // The kubelet retries a missing path every second without growing its backoff.
      this.retryTimer = this.clock.setTimer(RETRY_MS, () => {
        this.retryTimer = undefined;
        void this.pump();
      });
      return;
    }
    if (kind !== "dir" && kind !== "file") {
      this.watchFailed(new Error(`cannot watch ${this.path}: it is not readable as a directory or file`));
      return;
    }
    // A single file is watched through its directory, so an editor's rename-over-save is seen too.
    const target = kind === "dir" ? this.path : dirname(this.path);
    const only = kind === "file" ? basename(this.path) : undefined;
    try {
      const w = this.watchFn(target, (name) => this.onWatchEvent(name, only));
      w.on("error", (e: unknown) => {
        if (this.watcher === w) this.watchFailed(e);
      });
      this.watcher = w;
      this.watched = { kind, ino: this.pathIno };
      // Changes between the scan that just ran and this watch would otherwise wait for the rescan.
      if (this.emitter.emitted) this.again = true;
    } catch (e) {
      this.watchFailed(e);
    }
  }

  private onWatchEvent(name: string | null, only: string | undefined): void {
    if (this.stopped) return;
    const n = name ?? undefined;
    if (n !== undefined && only !== undefined && n !== only) return;
    // As the kubelet: events for dot-files are ignored (that is also where editors keep swap files).
    if (n !== undefined && n.startsWith(".")) return;
    this.stats.watchEvents++;
    if (this.debounceTimer) return;
    this.debounceTimer = this.clock.setTimer(this.debounceMs, () => {
      this.debounceTimer = undefined;
      void this.pump();
    });
  }

  /** Watch errors retry with a backoff of 1 s doubling to 20 s, reset after 40 s without failures. */
  private watchFailed(e: unknown): void {
    this.closeWatch();
    this.stats.watchFailures++;
    const now = this.clock.now();
    if (now - this.lastWatchFailureAt > 2 * MAX_RETRY_MS) this.watchFailures = 0;
    this.lastWatchFailureAt = now;
    const delay = Math.min(RETRY_MS * 2 ** this.watchFailures, MAX_RETRY_MS);
    this.watchFailures++;
    this.log.warn(`watching ${this.path} failed, retrying in ${delay / 1000}s: ${message(e)}`);
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = this.clock.setTimer(delay, () => {
      this.retryTimer = undefined;
      void this.pump();
    });
  }

  private closeWatch(): void {
    const w = this.watcher;
    this.watcher = undefined;
    this.watched = undefined;
    try {
      w?.close();
    } catch {
      // already closed
    }
  }
}

/** An error about a file as a whole (no position inside it). */
export function documentError(file: string, msg: string): ManifestError {
  return { file, line: 1, column: 1, field: "", message: msg };
}

function errno(e: unknown): string | undefined {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" ? e.code : undefined;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
