// What the two watched folders of manifests share, the static pod path (file-source.ts) and
// --local-objects (src/objects): their options, which names are read, and the fs.watch they use.
import { watch } from "node:fs";
import { stat } from "node:fs/promises";
import type { Clock, Logger } from "../util";

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

/** fs.watch's two kinds: "rename" (a name appeared or went), "change" (written to, or its attributes). */
export type WatchEventKind = "rename" | "change";

/** The part of fs.watch the watched folders use. */
export type WatchFn = (path: string, onEvent: (name: string | null, kind: WatchEventKind) => void) => Watcher;
export interface Watcher {
  close(): void;
  on(event: "error", listener: (e: unknown) => void): unknown;
}

/** The real watch: inotify through fs.watch, not keeping the process alive. */
export const fsWatch: WatchFn = (path, onEvent) =>
  watch(path, { persistent: false }, (event, name) => onEvent(name === null ? null : String(name), event === "rename" ? "rename" : "change"));

/** File names in byte order, as Go's sort.Strings (and the kubelet's glob) orders them. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
