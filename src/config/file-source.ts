// The static pod directory (--pod-manifest-path): the kubelet's file source (pkg/kubelet/config/file.go,
// file_linux.go) with its file selection, inotify watch and periodic rescan, plus what we do past it.
//
// Each manifest has a record (file-records.ts), and what it contributes to the set is the pods of the
// last content of it that loaded (its "last good" pods). A file's current content is acted on only
// once it has SETTLED (settle.ts), whether it loads or not; "renamed into place" is also seen by the
// watch (path-watch.ts): a "rename" event and no "change" event for the name since the last scan,
// checked again after a short grace that lets a write's pending event arrive. Until then the file
// keeps contributing its last good pods and reports nothing. A settled content that does not load is
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
import type { BigIntStats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { LoadResult, ManifestError, PodLoader } from "../manifest";
import { type Clock, errorCode, errorMessage, type Logger, Mutex, type Timer } from "../util";
import { acceptRecord, assembleRecords, documentError, expireGone, lastGoodEntries, restoredRecord, type FileRecord } from "./file-records";
import { PathWatch, type NameEvents, type PathKind } from "./path-watch";
import type { SourceReport } from "./pod-config";
import { newVersion, noteRead, readVersion, settleVerdict } from "./settle";
import { SnapshotEmitter } from "./snapshot-emitter";
import { statKey } from "./source-limits";
import { SourceState, type RestoredState } from "./source-state";
import { type AwaitingEvents, EVENT_GRACE_MS, type FileSourceOptions, MAX_READS_PER_SCAN } from "./file-source-options";
import type { PodSource } from "./types";
import { BACKUP_FILE_MESSAGE, byteOrder, fsWatch, isBackupFileName, isDirectory } from "./watched-directory";

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

  private started = false;
  private stopped = false;
  private pumping = false;
  private again = false;

  private periodicTimer: Timer | undefined;
  private settleTimer: Timer | undefined;
  private settleAt = Number.POSITIVE_INFINITY;
  private readonly watch: PathWatch;

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
    this.watch = new PathWatch({
      path: this.path,
      clock: this.clock,
      log: this.log,
      watchFn: opts.watch ?? fsWatch,
      debounceMs: this.debounceMs,
      checkFrequencyMs: this.checkFrequencyMs,
      stats: this.stats,
      wake: () => void this.pump(),
      stopped: () => this.stopped,
    });
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
    if (restored.entries.size > 0)
      this.log.info("static pod path: last good state restored", { path: this.path, manifests: restored.entries.size, state: this.state.file });
  }

  /** True while an inotify watch covers the path. */
  get watching(): boolean {
    return this.watch.active;
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
    const watchProblem = this.watch.problem;
    if (watchProblem) out.push(watchProblem);
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
    this.log.info("watching static pod path", { path: this.path });
    this.armPeriodic();
    void this.pump();
  }

  stop(): void {
    this.stopped = true;
    for (const t of [this.periodicTimer, this.settleTimer]) t?.cancel();
    this.watch.stop();
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
    const events = this.watch.take();
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
      names.map((name) =>
        isBackupFileName(name)
          ? undefined
          : stat(join(this.path, name), { bigint: true }).then(
              (st) => ({ st }),
              (error: unknown) => ({ error }),
            ),
      ),
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
        this.log.debug("static pod path: not recursing into a directory", { path: file });
        continue;
      }
      if (!fst.isFile()) {
        entryErrors.set(file, [documentError(file, "not a regular file: ignored")]);
        continue;
      }
      if (this.stats.reads - readsBefore >= maxReads && this.files.get(file)?.statKey !== statKey(fst)) {
        // Left for the next scan, with what the watch saw of it.
        present.add(file);
        this.watch.putBack(name, events);
        deferred = true;
        continue;
      }
      if (await this.readOne(file, now, fst, events, awaitingEvents)) present.add(file);
    }
    await this.settleByEvents(awaitingEvents, events);
    expireGone(this.files, present, now, this.settleMs);
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
    expireGone(this.files, present, now, this.settleMs);
    return { ...this.assemble(new Map(), now), complete: this.completeAfterRead() };
  }

  /** The path was read as a directory or a file: it is no longer missing or unreadable. */
  private found(kind: "dir" | "file"): void {
    if (this.missingSince !== undefined) this.log.info("static pod path is back", { path: this.path });
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
  private async readOne(
    file: string,
    now: number,
    st: BigIntStats,
    events: ReadonlyMap<string, NameEvents>,
    awaitingEvents: AwaitingEvents[],
  ): Promise<boolean> {
    let rec = this.files.get(file);
    if (rec && rec.statKey === statKey(st)) {
      if (!rec.settled && this.trySettle(rec, st, now) === "events" && this.watch.movedIn(basename(file), events))
        awaitingEvents.push([rec, basename(file), performance.now()]);
      return true;
    }
    this.stats.reads++;
    const r = await readVersion(file, st);
    const readAt = performance.now();
    if (r.kind === "gone") return false;
    if (!rec) {
      rec = { ...newVersion(now), result: { ok: true, pods: [] }, pods: [], errors: [] };
      this.files.set(file, rec);
    }
    if (noteRead(rec, r, now)) {
      if (r.failure !== undefined) rec.result = { ok: false, errors: [documentError(file, r.failure)] };
      // The bytes of the last good content need no loading: they gave these pods (and these UIDs).
      else if (r.hash === rec.goodHash) rec.result = { ok: true, pods: rec.pods };
      else rec.result = this.load(r.text, file);
    }
    const readSt = r.st;
    if (!rec.settled && this.trySettle(rec, readSt, now) === "events" && this.watch.movedIn(basename(file), events))
      awaitingEvents.push([rec, basename(file), readAt]);
    return true;
  }

  /**
   * Acts on the record's current content if it has settled (see the file's comment). "events" when
   * nothing but the watch could settle it now; "wait" when it must wait for the window.
   */
  private trySettle(rec: FileRecord, st: BigIntStats, now: number): "settled" | "events" | "wait" {
    const v = settleVerdict(rec, st, now, this.fileTimeNow(), this.settleMs);
    if (v.verdict !== "settled") return v.verdict;
    acceptRecord(rec);
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
    for (const [rec, name] of awaiting) if (!rec.settled && this.watch.movedIn(name, events)) acceptRecord(rec);
  }

  private load(text: string, file: string): LoadResult {
    try {
      return this.loader(text, { source: "file", location: file, nodeName: this.nodeName });
    } catch (e) {
      return { ok: false, errors: [documentError(file, `cannot load: ${errorMessage(e)}`)] };
    }
  }

  /** The snapshot in file order (file-records.ts assembleRecords), and the next settle rescan armed. */
  private assemble(entryErrors: ReadonlyMap<string, ManifestError[]>, now: number, pathErrors: ManifestError[] = []): Omit<SourceReport, "complete"> {
    const { pods, errors, delivered } = assembleRecords(this.files, entryErrors, pathErrors, this.delivered);
    this.delivered = delivered;
    this.armSettle(now);
    return { source: "file", pods, errors };
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
    const problem = this.state.save(lastGoodEntries(this.files));
    if (problem !== undefined && problem !== this.saveProblem) this.log.warn(problem);
    this.saveProblem = problem;
    if (problem === undefined && this.stateProblem !== undefined && snap.complete) this.stateProblem = undefined;
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
        // Changes between the scan that just ran and a new watch would otherwise wait for the rescan.
        if (this.watch.ensure(this.pathKind, this.pathIno) && this.emitter.emitted) this.again = true;
      } while (this.again && !this.stopped);
    } catch (e) {
      this.log.error("static pod path: scan failed", { path: this.path, err: e });
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
}
