// The static pod path's inotify watch, as file_linux.go keeps one: on the directory (a single file is
// watched through its directory, so an editor's rename-over-save is seen too), re-created when the
// path is replaced, retried with a backoff when it fails, and a retry every second while the path is
// missing. It also keeps what the watch saw of each name since the last scan, which is how a file
// renamed into place in the same tick as it was written settles at once (settle.ts).
import { basename, dirname } from "node:path";
import { type Clock, errorMessage, type Logger, type Timer } from "../util";
import type { WatchEventKind, Watcher, WatchFn } from "./watched-directory";

/** What the watch saw of a name since the last scan. */
export interface NameEvents {
  renamed: boolean;
  changed: boolean;
}

/** What the path was found to be at the last read. */
export type PathKind = "dir" | "file" | "missing" | "other" | "error";

const RETRY_MS = 1_000;
const MAX_RETRY_MS = 20_000;
/** More distinct names than this between two scans: the events are dropped and settling decides. */
const MAX_TRACKED_NAMES = 4096;

export interface PathWatchOptions {
  path: string;
  clock: Clock;
  log: Logger;
  watchFn: WatchFn;
  debounceMs: number;
  checkFrequencyMs: number;
  /** The source's counters (tests and /metrics read them there). */
  stats: { watchEvents: number; watchFailures: number };
  /** A rescan is due: events came in, or a retry is up. */
  wake: () => void;
  stopped: () => boolean;
}

export class PathWatch {
  private watcher: Watcher | undefined;
  /** Where the watch is and what it covers; the inode tells a deleted and recreated path apart. */
  private watched: { kind: "dir" | "file"; ino: number } | undefined;
  private failures = 0;
  private lastFailureAt = Number.NEGATIVE_INFINITY;
  private failure: string | undefined;
  private nameEvents = new Map<string, NameEvents>();
  /** A watch event without a name, or too many names: the watch cannot vouch for any rename. */
  private eventsLost = false;
  private debounceTimer: Timer | undefined;
  private retryTimer: Timer | undefined;

  constructor(private readonly o: PathWatchOptions) {}

  /** True while an inotify watch covers the path. */
  get active(): boolean {
    return this.watcher !== undefined;
  }

  /** Why the watch is not working, for problems(); undefined while it works. */
  get problem(): string | undefined {
    return this.failure;
  }

  /**
   * Keeps the watch on the path as last read (`kind`, inode `ino`). True when a new watch was set up:
   * changes between the scan that just ran and it would otherwise wait for the rescan.
   */
  ensure(kind: PathKind, ino: number): boolean {
    if (this.o.stopped()) return false;
    if (this.watcher && (kind !== this.watched?.kind || ino !== this.watched.ino)) {
      // Deleted, replaced, or turned from a file into a directory: the old watch sees nothing now.
      this.close();
    }
    if (this.watcher || this.retryTimer) return false;
    if (kind === "missing") {
      // The kubelet retries a missing path every second without growing its backoff.
      this.retryTimer = this.o.clock.setTimer(RETRY_MS, () => {
        this.retryTimer = undefined;
        this.o.wake();
      });
      return false;
    }
    if (kind !== "dir" && kind !== "file") {
      this.failed(new Error(`cannot watch ${this.o.path}: it is not readable as a directory or file`));
      return false;
    }
    const target = kind === "dir" ? this.o.path : dirname(this.o.path);
    const only = kind === "file" ? basename(this.o.path) : undefined;
    try {
      const w = this.o.watchFn(target, (name, event) => this.onEvent(name, event, only));
      w.on("error", (e: unknown) => {
        if (this.watcher === w) this.failed(e);
      });
      this.watcher = w;
      this.watched = { kind, ino };
      this.failure = undefined;
      return true;
    } catch (e) {
      this.failed(e);
      return false;
    }
  }

  /** The events seen since the last call, for one scan; the log starts afresh. */
  take(): ReadonlyMap<string, NameEvents> {
    const taken = this.nameEvents;
    this.nameEvents = new Map();
    this.eventsLost = false;
    return taken;
  }

  /** A name left for the next scan keeps the events this scan took for it. */
  putBack(name: string, taken: ReadonlyMap<string, NameEvents>): void {
    const t = taken.get(name);
    if (!t) return;
    const e = this.nameEvents.get(name) ?? { renamed: false, changed: false };
    this.nameEvents.set(name, { renamed: e.renamed || t.renamed, changed: e.changed || t.changed });
  }

  /** The watch saw the name renamed into place, and nothing write to it, since the last scan. */
  movedIn(name: string, taken: ReadonlyMap<string, NameEvents>): boolean {
    if (this.eventsLost || !this.watcher) return false;
    const a = taken.get(name);
    const b = this.nameEvents.get(name);
    return (a?.renamed === true || b?.renamed === true) && !a?.changed && !b?.changed;
  }

  stop(): void {
    for (const t of [this.debounceTimer, this.retryTimer]) t?.cancel();
    this.close();
  }

  private onEvent(name: string | null, kind: WatchEventKind, only: string | undefined): void {
    if (this.o.stopped()) return;
    const n = name ?? undefined;
    if (n !== undefined && only !== undefined && n !== only) return;
    // As the kubelet: events for dot-files are ignored (that is also where editors keep swap files).
    if (n !== undefined && n.startsWith(".")) return;
    this.o.stats.watchEvents++;
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
    this.debounceTimer = this.o.clock.setTimer(this.o.debounceMs, () => {
      this.debounceTimer = undefined;
      this.o.wake();
    });
  }

  /** Watch errors retry with a backoff of 1 s doubling to 20 s, reset after 40 s without failures. */
  private failed(e: unknown): void {
    this.close();
    this.o.stats.watchFailures++;
    const now = this.o.clock.now();
    if (now - this.lastFailureAt > 2 * MAX_RETRY_MS) this.failures = 0;
    this.lastFailureAt = now;
    const delay = Math.min(RETRY_MS * 2 ** this.failures, MAX_RETRY_MS);
    this.failures++;
    this.o.log.warn("watching failed, retrying", { path: this.o.path, retryIn: `${delay / 1000}s`, err: e });
    this.failure = `cannot watch ${this.o.path} (${errorMessage(e)}): changes are seen by the rescan every ${this.o.checkFrequencyMs / 1000}s until it works again`;
    if (this.retryTimer || this.o.stopped()) return;
    this.retryTimer = this.o.clock.setTimer(delay, () => {
      this.retryTimer = undefined;
      this.o.wake();
    });
  }

  private close(): void {
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
