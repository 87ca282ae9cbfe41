// The static pod directory (--pod-manifest-path): the kubelet's file source (pkg/kubelet/config/file.go,
// file_linux.go) with its file selection, inotify watch and periodic rescan, plus what we do past it.
//
// Each manifest has a record, and what it contributes to the set is the pods of the last content of
// it that loaded (its "last good" pods). A file's current content is acted on only once it has
// SETTLED, whether it loads or not:
//   - its bytes are the ones already acted on, or those of its last good content (a revert);
//   - or it was renamed into place: ctime strictly after mtime, to the nanosecond (the last operation
//     on the inode was a rename, link or chmod after the last write), or, since a write and a rename
//     in the same timer tick leave ctime equal to mtime, the watch saw the name only renamed into
//     place (a "rename" event and no "change" event for it since the last scan, checked again after a
//     short grace that lets a write's pending event arrive);
//   - or it has been still for the settle window: its stat key (inode, size, mtime, ctime) unchanged
//     since we first saw it that long ago, or its ctime that old by the wall clock (a file found at
//     start, or by a rescan long after it was written).
// Until then the file keeps contributing its last good pods and reports nothing, so a two-step write
// whose first half happens to be a valid pod never runs that half. A failure that waiting cannot fix
// (over the size limit, unreadable) is final at once; a file over the limit is never read past
// limit + 1 bytes, so no prefix of it is ever decoded. A settled content that does not load is
// reported and keeps the last good pods (bad input loses nothing).
//
// Files that go, and a path that goes:
//   - a file that disappears from a directory that exists takes its pod with it, as in the kubelet,
//     but only once it has been gone for the settle window: an `rm -rf` of the directory unlinks the
//     files before the directory, and an editor may delete before it writes;
//   - the path itself missing (deleted, renamed away) keeps every pod it had and is reported (log once,
//     problems(), the snapshot's errors) until it returns; the kubelet sends an empty set and kills
//     them all. When it returns with the same manifests nothing changes (same bytes, same UIDs); an
//     empty directory in its place is how the operator removes them. For a single-file path, the file
//     missing from a directory that exists is that file going (its pod goes after the window).
//
// Last good state across restarts (SourceState, <stateDir>/file.json): at start each manifest's record
// begins with the pods it last gave, so one that is invalid or half written when the agent starts
// serves its last good pod (same UID: the containers are adopted) instead of leaving it an orphan.
// Completeness (whether PodConfig counts the source as seen, which lets orphan cleanup run):
//   - after a read of the path: complete, as in the kubelet; a file that does not load contributes
//     its last good pods, which cover every pod it started, since the state is written before a set
//     is handed on;
//   - the path missing: complete (its last good pods are served; with no state at all, an empty set
//     as the kubelet sends);
//   - the path unreadable (EACCES, not a directory): complete when there is a state to serve, else not
//     until it is read once (the kubelet sends nothing then);
//   - a state file that exists but does not read back: what ran before is unknown, so the source is
//     not complete while a manifest that has never loaded in this run is present (nothing of another
//     source is removed meanwhile, and the problem is reported), and the state is not rewritten
//     until it is.
// Once complete, always complete (PodConfig's seen set only grows).
import { createHash } from "node:crypto";
import { watch, type BigIntStats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { type LoadResult, type ManifestError, type PodLoader } from "../manifest/types";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { Mutex } from "../util/queue";
import { podKey } from "../api/pod";
import type { SourceReport } from "./pod-config";
import type { PodSource } from "./types";
import { SnapshotEmitter } from "./snapshot-emitter";
import { errorCode, errorMessage } from "../util/errors";
import { MAX_MANIFEST_BYTES, MAX_PODS_PER_SOURCE, readFileCapped, statKey, tooLargeMessage, tooManyPodsMessage } from "./source-limits";
import { SourceState, type LastGood, type RestoredState } from "./source-state";

export { MAX_MANIFEST_BYTES };

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

/** How a watched directory of manifests is read: the file source's, and --local-objects'. */
export interface WatchedDirectoryOptions {
  clock: Clock;
  log: Logger;
  /** Full rescan period; the kubelet's fileCheckFrequency, 20 s. */
  checkFrequencyMs?: number;
  /** Watch events are gathered this long before one rescan. */
  debounceMs?: number;
  /** A changed file is acted on once it has been still this long (unless renamed into place). */
  settleMs?: number;
  /** fs.watch, or a stand-in for tests of the watch's failures. */
  watch?: WatchFn;
  /**
   * The wall clock that files' ctimes are compared with (the kernel stamps them in real time, whatever
   * `clock` is): Date.now, or a stand-in for tests that need files to look old.
   */
  fileTimeNow?: () => number;
}

export interface FileSourceOptions extends WatchedDirectoryOptions {
  /** A directory of manifests, or a single manifest file. */
  path: string;
  nodeName: string;
  loader: PodLoader;
  /**
   * Where the last good state is kept across restarts (the agent passes <root-dir>/sources; the file
   * is file.json in it). Without it, in memory only: a restart starts from nothing, as the kubelet.
   */
  stateDir?: string;
}

/** fs.watch's two kinds: "rename" (a name appeared or went), "change" (written to, or its attributes). */
export type WatchEventKind = "rename" | "change";

/** The part of fs.watch this source uses. */
export type WatchFn = (path: string, onEvent: (name: string | null, kind: WatchEventKind) => void) => Watcher;
export interface Watcher {
  close(): void;
  on(event: "error", listener: (e: unknown) => void): unknown;
}

const fsWatch: WatchFn = (path, onEvent) =>
  watch(path, { persistent: false }, (event, name) => onEvent(name === null ? null : String(name), event === "rename" ? "rename" : "change"));

/** What we know of one manifest file, kept between scans. */
interface FileRecord {
  /**
   * The stat key of the version last read: while a scan finds the same key the bytes are not read
   * again, so a scan of a large directory costs one stat a file. "" before the first read (a record
   * restored from the state); prefixed "changing:" when the file changed while it was read.
   */
  statKey: string;
  /** When this stat key was first seen, by the agent's clock. */
  statSince: number;
  /** sha256 of the bytes last read, or a marker when they could not be read. */
  hash: string;
  /** What loading the bytes last read gave. */
  result: LoadResult;
  /** The read failed for a reason that waiting cannot fix (unreadable, too large): no settling. */
  final: boolean;
  /** Whether the bytes last read have been acted on (their pods or their errors are what counts). */
  settled: boolean;
  /** The hash of the content last acted on. */
  acceptedHash?: string;
  /** The hash of the last content that loaded, and its pods: what the file contributes. */
  goodHash?: string;
  pods: Pod[];
  /** The errors of the content acted on, if it did not load. */
  errors: ManifestError[];
  /** When a scan first found the file gone; its pods stay until it has been gone for the window. */
  goneSince?: number;
}

/** A record only the watch can settle: its name, and when its bytes were read (performance.now()). */
type AwaitingEvents = [FileRecord, string, number];

/** What the watch saw of a name since the last scan. */
interface NameEvents {
  renamed: boolean;
  changed: boolean;
}

type PathKind = "dir" | "file" | "missing" | "other" | "error";

/** Where the watch is and what it covers; the inode tells a deleted and recreated path apart. */
interface WatchTarget {
  kind: "dir" | "file";
  ino: number;
}

const RETRY_MS = 1_000;
const MAX_RETRY_MS = 20_000;
/**
 * How long a scan lets pending watch events arrive before it trusts "only renamed into place": a
 * write that happened before the file was read has queued its "change" event by then. Counted from
 * the read, so the time the scan spends loading the manifest already counts towards it.
 */
const EVENT_GRACE_MS = 5;
/**
 * A background scan reads at most this many new or changed manifests, and the next scan, which
 * follows at once, reads the rest: loading a manifest costs milliseconds, so when many are written
 * at once the first pods start after a few are loaded, not after all of them. Files left for the
 * next scan count as present and keep what they gave before. The first read of the path, which makes
 * the source's set complete, reads everything.
 */
const MAX_READS_PER_SCAN = 4;
/** More distinct names than this between two scans: the events are dropped and settling decides. */
const MAX_TRACKED_NAMES = 4096;

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
  private readonly fileTimeNow: () => number;
  private readonly mutex = new Mutex();
  private readonly state: SourceState;
  private readonly stateStatus: RestoredState["status"];

  private readonly files = new Map<string, FileRecord>();
  /** UIDs handed on by the last snapshot: they keep their place under the pods-per-source limit. */
  private delivered = new Set<string>();
  /** Whether a complete set was reported (PodConfig then counts the source as seen, for good). */
  private seen = false;
  private pathKind: PathKind = "missing";
  /** What the path was when last read ("file" or "dir"), to tell a removed file from a removed directory. */
  private lastKind: "file" | "dir" | undefined;
  private pathIno = 0;
  private missingSince: number | undefined;
  private pathProblem: string | undefined;
  private stateProblem: string | undefined;
  private saveProblem: string | undefined;
  private nameEvents = new Map<string, NameEvents>();
  /** A watch event without a name, or too many names: the watch cannot vouch for any rename. */
  private eventsLost = false;

  private started = false;
  private stopped = false;
  private pumping = false;
  private again = false;

  private periodicTimer: Timer | undefined;
  private debounceTimer: Timer | undefined;
  private settleTimer: Timer | undefined;
  private settleAt = Number.POSITIVE_INFINITY;
  private retryTimer: Timer | undefined;
  private watcher: Watcher | undefined;
  private watched: WatchTarget | undefined;
  private watchFailures = 0;
  private lastWatchFailureAt = Number.NEGATIVE_INFINITY;
  private watchProblem: string | undefined;

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
    // None beyond the turn of the event loop the events arrive in: a save by rename is one event, a
    // file written in place is left to settle anyway, and a scan that finds more changes than it
    // reads at once goes on with another; every millisecond here is a millisecond of pod start.
    this.debounceMs = opts.debounceMs ?? 0;
    this.settleMs = opts.settleMs ?? 1_000;
    this.watchFn = opts.watch ?? fsWatch;
    this.fileTimeNow = opts.fileTimeNow ?? Date.now;
    this.state = new SourceState({ dir: opts.stateDir, source: "file", location: this.path });
    const restored = this.state.restore();
    this.stateStatus = restored.status;
    if (restored.status === "unreadable") {
      this.stateProblem = `${restored.problem}; until every manifest has loaded, runtime pods of other sources are not removed`;
      this.log.warn(this.stateProblem);
    }
    if (restored.status === "none" && restored.note) this.log.info(restored.note);
    for (const [file, good] of restored.entries) this.files.set(file, restoredRecord(good));
    if (restored.entries.has(this.path)) this.lastKind = "file";
    else if (restored.entries.size > 0) this.lastKind = "dir";
    if (restored.entries.size > 0) this.log.info(`static pod path ${this.path}: last good state of ${restored.entries.size} manifest(s) restored from ${this.state.file}`);
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
   * What is wrong with the source as a whole, one line each, for /healthz?verbose: the path missing
   * or unreadable (its pods kept), the watch failing, the state file unreadable or unwritable. Errors
   * of single manifests are in the snapshots (PodConfig.errors()), not here.
   */
  problems(): string[] {
    const out: string[] = [];
    if (this.pathProblem) out.push(this.pathProblem);
    if (this.watchProblem) out.push(this.watchProblem);
    if (this.stateProblem) out.push(this.stateProblem);
    if (this.saveProblem) out.push(this.saveProblem);
    return out;
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

  /** One full read of the path, with the last good state written; serialised with the background reads. */
  scan(): Promise<SourceReport> {
    return this.scanUpTo(Number.POSITIVE_INFINITY);
  }

  /** A read of the path that reads at most maxReads new or changed manifests (see MAX_READS_PER_SCAN). */
  private scanUpTo(maxReads: number): Promise<SourceReport> {
    return this.mutex.run(async () => {
      const snap = await this.readAll(maxReads);
      this.persist(snap);
      return snap;
    });
  }

  private async readAll(maxReads: number): Promise<SourceReport> {
    this.stats.scans++;
    const now = this.clock.now();
    const events = this.takeEvents();
    let st: BigIntStats;
    try {
      st = await stat(this.path, { bigint: true });
    } catch (e) {
      if (errorCode(e) !== "ENOENT") return this.unreadable("error", `cannot read the static pod path ${this.path}: ${errorMessage(e)}`);
      // A single file that is gone from a directory that is still there: that file was removed.
      if (this.lastKind === "file" && (await isDirectory(dirname(this.path)))) return this.readSingleFile(now, events, undefined);
      return this.missing(now);
    }
    this.pathIno = Number(st.ino);
    if (st.isFile()) {
      this.found("file");
      // A single file given explicitly is run whatever its name: choosing it was deliberate.
      return this.readSingleFile(now, events, st);
    }
    if (!st.isDirectory()) return this.unreadable("other", `the static pod path ${this.path} is neither a directory nor a regular file`);
    let names: string[];
    try {
      names = await readdir(this.path);
    } catch (e) {
      if (errorCode(e) === "ENOENT") return this.missing(now); // deleted since the stat
      return this.unreadable("error", `cannot list the static pod directory ${this.path}: ${errorMessage(e)}`);
    }
    this.found("dir");
    // The kubelet globs "[^.]*": every name not starting with a dot, sorted, no extension filter.
    names = names.filter((n) => !n.startsWith(".")).sort(byteOrder);
    const present = new Set<string>();
    const entryErrors = new Map<string, ManifestError[]>();
    const awaitingEvents: AwaitingEvents[] = [];
    const readsBefore = this.stats.reads;
    let deferred = false;
    // Every name is stat'ed at once: one at a time, a directory of a hundred manifests costs a hundred
    // round trips to the I/O threads before a new manifest's pod can start.
    const stats = await Promise.all(
      names.map((name) => (isBackupFileName(name) ? undefined : stat(join(this.path, name), { bigint: true }).then((st) => ({ st }), (error: unknown) => ({ error })))),
    );
    for (const [i, name] of names.entries()) {
      const file = join(this.path, name);
      const got = stats[i];
      if (!got) {
        entryErrors.set(file, [documentError(file, BACKUP_FILE_MESSAGE)]);
        continue;
      }
      if ("error" in got) {
        const e = got.error;
        if (errorCode(e) === "ENOENT") continue; // removed since the listing, or a dangling symlink
        // Cannot even stat it: whatever it gave before stays.
        entryErrors.set(file, [documentError(file, `cannot stat: ${errorMessage(e)}`)]);
        present.add(file);
        continue;
      }
      const fst = got.st;
      if (fst.isDirectory()) {
        this.log.debug(`not recursing into ${file}`);
        continue;
      }
      if (!fst.isFile()) {
        entryErrors.set(file, [documentError(file, "not a regular file: ignored")]);
        continue;
      }
      if (this.stats.reads - readsBefore >= maxReads && this.files.get(file)?.statKey !== statKey(fst)) {
        // Left for the next scan, with what the watch saw of it.
        present.add(file);
        this.putBackEvents(name, events);
        deferred = true;
        continue;
      }
      if (await this.readOne(file, now, fst, events, awaitingEvents)) present.add(file);
    }
    await this.settleByEvents(awaitingEvents, events);
    this.expireGone(present, now);
    if (deferred) {
      this.again = true;
      return { ...this.assemble(entryErrors, now), complete: this.seen };
    }
    return { ...this.assemble(entryErrors, now), complete: this.completeAfterRead() };
  }

  /** The single-file form of the path: `st` undefined when the file is gone (its directory is not). */
  private async readSingleFile(now: number, events: ReadonlyMap<string, NameEvents>, st: BigIntStats | undefined): Promise<SourceReport> {
    const present = new Set<string>();
    const awaitingEvents: AwaitingEvents[] = [];
    if (st && (await this.readOne(this.path, now, st, events, awaitingEvents))) present.add(this.path);
    await this.settleByEvents(awaitingEvents, events);
    // Gone from a directory that is there: watched through that directory, as when it was there.
    if (!st) this.found("file");
    this.expireGone(present, now);
    return { ...this.assemble(new Map(), now), complete: this.completeAfterRead() };
  }

  /** The path was read as a directory or a file: it is no longer missing or unreadable. */
  private found(kind: "dir" | "file"): void {
    if (this.missingSince !== undefined) this.log.info(`static pod path ${this.path} is back`);
    this.pathKind = kind;
    this.lastKind = kind;
    this.missingSince = undefined;
    this.pathProblem = undefined;
  }

  /**
   * Reads one manifest (unless its stat key is unchanged) and settles it when it can. False when the
   * file no longer exists. A record that only the watch's events could settle is added to
   * `awaitingEvents`, for settleByEvents after the grace.
   */
  private async readOne(file: string, now: number, st: BigIntStats, events: ReadonlyMap<string, NameEvents>, awaitingEvents: AwaitingEvents[]): Promise<boolean> {
    let rec = this.files.get(file);
    if (rec && rec.statKey === statKey(st)) {
      if (!rec.settled && this.trySettle(rec, st, now) === "events" && this.movedIn(basename(file), events)) awaitingEvents.push([rec, basename(file), performance.now()]);
      return true;
    }
    this.stats.reads++;
    const r = await readFileCapped(file, MAX_MANIFEST_BYTES);
    const readAt = performance.now();
    if (r.kind === "gone") return false;
    let hash: string;
    let key: string;
    let readSt = st;
    let failure: string | undefined;
    let text = "";
    if (r.kind === "bytes") {
      hash = createHash("sha256").update(r.bytes).digest("hex");
      key = r.stable ? r.key : `changing:${r.key}`;
      readSt = r.st;
      text = r.bytes.toString("utf8");
    } else if (r.kind === "too-large") {
      // Never decoded, not even its first 10 MB: no prefix of an oversized file runs.
      hash = `too-large:${r.size}`;
      key = r.key;
      readSt = r.st;
      failure = tooLargeMessage(r.size);
    } else {
      hash = `unreadable:${r.code ?? r.message}`;
      key = statKey(st);
      failure = `cannot read: ${r.message}`;
    }
    if (!rec) {
      rec = { statKey: "", statSince: now, hash: "", result: { ok: true, pods: [] }, final: false, settled: false, pods: [], errors: [] };
      this.files.set(file, rec);
    }
    if (rec.statKey !== key) {
      rec.statKey = key;
      rec.statSince = now;
    }
    if (rec.hash !== hash) {
      rec.hash = hash;
      rec.final = failure !== undefined;
      rec.settled = false;
      if (failure !== undefined) rec.result = { ok: false, errors: [documentError(file, failure)] };
      // The bytes of the last good content need no loading: they gave these pods (and these UIDs).
      else if (hash === rec.goodHash) rec.result = { ok: true, pods: rec.pods };
      else rec.result = this.load(text, file);
    }
    if (!rec.settled && this.trySettle(rec, readSt, now) === "events" && this.movedIn(basename(file), events)) awaitingEvents.push([rec, basename(file), readAt]);
    return true;
  }

  /**
   * Acts on the record's current content if it has settled (see the file's comment). "events" when
   * nothing but the watch could settle it now; "wait" when it must wait for the window.
   */
  private trySettle(rec: FileRecord, st: BigIntStats, now: number): "settled" | "events" | "wait" {
    // Still since we first saw this version, or since its ctime (any write moves it) by the wall clock.
    const stillFor = Math.max(now - rec.statSince, this.fileTimeNow() - Number(st.ctimeNs / 1_000_000n));
    const settled =
      rec.final ||
      rec.hash === rec.acceptedHash ||
      rec.hash === rec.goodHash ||
      (!rec.statKey.startsWith("changing:") && (st.ctimeNs > st.mtimeNs || stillFor >= this.settleMs));
    if (!settled) return rec.statKey.startsWith("changing:") ? "wait" : "events";
    this.accept(rec);
    return "settled";
  }

  /** After a grace for pending events: records whose names the watch saw only renamed into place. */
  private async settleByEvents(awaiting: readonly AwaitingEvents[], events: ReadonlyMap<string, NameEvents>): Promise<void> {
    if (awaiting.length === 0) return;
    // Real time, not the agent's clock: this waits for the kernel's events to reach us, nothing else.
    // The grace runs from the last read, and at least one turn of the event loop is always given
    // (events that came while a manifest was being loaded are delivered only then).
    const until = Math.max(...awaiting.map((a) => a[2])) + EVENT_GRACE_MS;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, until - performance.now())));
    for (const [rec, name] of awaiting) if (!rec.settled && this.movedIn(name, events)) this.accept(rec);
  }

  /** The watch saw the name renamed into place, and nothing write to it, since the last scan. */
  private movedIn(name: string, taken: ReadonlyMap<string, NameEvents>): boolean {
    if (this.eventsLost || !this.watcher) return false;
    const a = taken.get(name);
    const b = this.nameEvents.get(name);
    return (a?.renamed === true || b?.renamed === true) && !a?.changed && !b?.changed;
  }

  private accept(rec: FileRecord): void {
    rec.settled = true;
    rec.acceptedHash = rec.hash;
    if (rec.result.ok) {
      rec.pods = rec.result.pods;
      rec.goodHash = rec.hash;
      rec.errors = [];
    } else {
      // Bad input loses nothing: the last good pods of this file stay, the error is reported.
      rec.errors = rec.result.errors;
    }
  }

  private load(text: string, file: string): LoadResult {
    try {
      return this.loader(text, { source: "file", location: file, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, errors: [documentError(file, `cannot load: ${errorMessage(e)}`)] };
    }
  }

  /** Files not found by this read: gone once they have been missing for the settle window. */
  private expireGone(present: ReadonlySet<string>, now: number): void {
    for (const [file, rec] of [...this.files]) {
      if (present.has(file)) rec.goneSince = undefined;
      else if (rec.goneSince === undefined) rec.goneSince = now;
      else if (now - rec.goneSince >= this.settleMs) this.files.delete(file);
    }
  }

  /**
   * The snapshot in file order. Two files naming the same pod: the first in sort order wins (as the
   * kubelet's dedupe, kubernetes PR #142028, keeps it) and the later one is an error naming both.
   * Past MAX_PODS_PER_SOURCE, the pods handed on last time keep their place and the others are errors.
   */
  private assemble(entryErrors: ReadonlyMap<string, ManifestError[]>, now: number, pathErrors: ManifestError[] = []): Omit<SourceReport, "complete"> {
    const candidates: { file: string; pod: Pod }[] = [];
    const errors: ManifestError[] = [...pathErrors];
    const owner = new Map<string, string>();
    const files = [...new Set([...this.files.keys(), ...entryErrors.keys()])].sort(byteOrder);
    // A file that went while another file names its pod (a manifest renamed): it has moved, not
    // vanished, so the gone one gives way at once, without a duplicate error.
    const present = new Set<string>();
    for (const rec of this.files.values()) if (rec.goneSince === undefined) for (const pod of rec.pods) present.add(podKey(pod));
    for (const file of files) {
      errors.push(...(entryErrors.get(file) ?? []));
      const rec = this.files.get(file);
      if (!rec) continue;
      errors.push(...rec.errors);
      for (const pod of rec.pods) {
        const key = podKey(pod);
        if (rec.goneSince !== undefined && present.has(key)) continue;
        const first = owner.get(key);
        if (first !== undefined) {
          errors.push({ file, line: 1, column: 1, field: "metadata.name", message: `duplicate pod name "${key}": ${first} already defines it; this file is not run` });
          continue;
        }
        owner.set(key, file);
        candidates.push({ file, pod });
      }
    }
    let kept = candidates;
    if (candidates.length > MAX_PODS_PER_SOURCE) {
      const uid = (p: Pod) => p.metadata?.uid ?? "";
      const first = candidates.filter((c) => this.delivered.has(uid(c.pod)));
      const rest = candidates.filter((c) => !this.delivered.has(uid(c.pod)));
      const allowed = new Set([...first, ...rest].slice(0, MAX_PODS_PER_SOURCE));
      kept = candidates.filter((c) => allowed.has(c));
      for (const c of candidates) {
        if (!allowed.has(c)) errors.push(documentError(c.file, `not run: the static pod path has ${tooManyPodsMessage(candidates.length)}`));
      }
    }
    this.delivered = new Set(kept.map((c) => c.pod.metadata?.uid ?? ""));
    this.armSettle(now);
    return { source: "file", pods: kept.map((c) => c.pod), errors };
  }

  /** Complete after a read of the path (see the file's comment). */
  private completeAfterRead(): boolean {
    if (!this.seen && this.stateStatus === "unreadable") {
      const unknown = [...this.files.values()].some((r) => r.goodHash === undefined && r.goneSince === undefined && !(r.settled && r.result.ok));
      if (!unknown) this.seen = true;
    } else {
      this.seen = true;
    }
    return this.seen;
  }

  /** The path is gone: every pod it had is kept, and that is reported until it returns. */
  private missing(now: number): SourceReport {
    this.pathKind = "missing";
    this.missingSince ??= now;
    let pods = 0;
    for (const rec of this.files.values()) {
      // The window for files that went starts again when the path is back.
      rec.goneSince = undefined;
      pods += rec.pods.length;
    }
    const why = `the static pod path ${this.path} is missing: its ${pods} pod(s) are kept until it returns (an empty directory in its place removes them)`;
    this.pathProblem = `${why}; missing since ${new Date(this.missingSince).toISOString()}`;
    if (this.stateStatus !== "unreadable") this.seen = true;
    return { ...this.assemble(new Map(), now, [documentError(this.path, why)]), complete: this.seen };
  }

  /** The path itself cannot be read: keep every pod we have, report why. */
  private unreadable(kind: "error" | "other", why: string): SourceReport {
    this.pathKind = kind;
    this.pathProblem = `${why}; its pods are kept`;
    if (this.stateStatus === "ok") this.seen = true;
    return { ...this.assemble(new Map(), this.clock.now(), [documentError(this.path, why)]), complete: this.seen };
  }

  /** Writes the last good state when it changed, before the set is handed on. */
  private persist(snap: SourceReport): void {
    // Not complete: what the state would miss is unknown; the old file stays for the next start.
    if (!snap.complete) return;
    const entries = new Map<string, LastGood>();
    for (const [file, rec] of this.files) if (rec.goodHash !== undefined) entries.set(file, { hash: rec.goodHash, pods: rec.pods });
    const problem = this.state.save(entries);
    if (problem !== undefined && problem !== this.saveProblem) this.log.warn(problem);
    this.saveProblem = problem;
    if (problem === undefined && this.stateProblem !== undefined && snap.complete) this.stateProblem = undefined;
  }

  /** A name left for the next scan keeps the events this scan took for it. */
  private putBackEvents(name: string, taken: ReadonlyMap<string, NameEvents>): void {
    const t = taken.get(name);
    if (!t) return;
    const e = this.nameEvents.get(name) ?? { renamed: false, changed: false };
    this.nameEvents.set(name, { renamed: e.renamed || t.renamed, changed: e.changed || t.changed });
  }

  private takeEvents(): ReadonlyMap<string, NameEvents> {
    const taken = this.nameEvents;
    this.nameEvents = new Map();
    this.eventsLost = false;
    return taken;
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
        // Until the first complete set, everything is read at once: it is what lets orphans be cleaned up.
        const snap = await this.scanUpTo(this.seen ? MAX_READS_PER_SCAN : Number.POSITIVE_INFINITY);
        if (this.stopped) return;
        this.emitter.emit(snap);
        this.ensureWatch();
      } while (this.again && !this.stopped);
    } catch (e) {
      this.log.error(`static pod path ${this.path}: ${errorMessage(e)}`);
    } finally {
      this.pumping = false;
    }
  }

  /** A rescan when the first unsettled file's window ends, or a gone file's. */
  private armSettle(now: number): void {
    // While the path is missing nothing settles or goes; the retry every second looks for it.
    if (this.pathKind === "missing") return;
    let due = Number.POSITIVE_INFINITY;
    for (const rec of this.files.values()) {
      if (rec.goneSince !== undefined) due = Math.min(due, rec.goneSince + this.settleMs);
      else if (!rec.settled && rec.goneSince === undefined) due = Math.min(due, rec.statSince + this.settleMs);
    }
    if (due === Number.POSITIVE_INFINITY || this.stopped || !this.started) return;
    if (this.settleTimer && this.settleAt <= due) return;
    this.settleTimer?.cancel();
    this.settleAt = due;
    this.settleTimer = this.clock.setTimer(Math.max(1, due - now), () => {
      this.settleTimer = undefined;
      this.settleAt = Number.POSITIVE_INFINITY;
      void this.pump();
    });
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
      const w = this.watchFn(target, (name, event) => this.onWatchEvent(name, event, only));
      w.on("error", (e: unknown) => {
        if (this.watcher === w) this.watchFailed(e);
      });
      this.watcher = w;
      this.watched = { kind, ino: this.pathIno };
      this.watchProblem = undefined;
      // Changes between the scan that just ran and this watch would otherwise wait for the rescan.
      if (this.emitter.emitted) this.again = true;
    } catch (e) {
      this.watchFailed(e);
    }
  }

  private onWatchEvent(name: string | null, kind: WatchEventKind, only: string | undefined): void {
    if (this.stopped) return;
    const n = name ?? undefined;
    if (n !== undefined && only !== undefined && n !== only) return;
    // As the kubelet: events for dot-files are ignored (that is also where editors keep swap files).
    if (n !== undefined && n.startsWith(".")) return;
    this.stats.watchEvents++;
    if (n === undefined || this.nameEvents.size >= MAX_TRACKED_NAMES) {
      this.nameEvents.clear();
      this.eventsLost = true;
    } else {
      const e = this.nameEvents.get(n) ?? { renamed: false, changed: false };
      if (kind === "rename") e.renamed = true;
      else e.changed = true;
      this.nameEvents.set(n, e);
    }
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
    this.log.warn(`watching ${this.path} failed, retrying in ${delay / 1000}s: ${errorMessage(e)}`);
    this.watchProblem = `cannot watch ${this.path} (${errorMessage(e)}): changes are seen by the rescan every ${this.checkFrequencyMs / 1000}s until it works again`;
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

/** A record restored from the state: its file is read at the first scan, and until then it gives its last good pods. */
function restoredRecord(good: LastGood): FileRecord {
  return { statKey: "", statSince: 0, hash: "", result: { ok: true, pods: good.pods }, final: false, settled: false, goodHash: good.hash, pods: good.pods, errors: [] };
}

/** An error about a file as a whole (no position inside it). */
export function documentError(file: string, msg: string): ManifestError {
  return { file, line: 1, column: 1, field: "", message: msg };
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
