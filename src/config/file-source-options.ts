// FileSource's options, and the two timing rules of its reads (file-source.ts): how long a scan waits
// for pending watch events, and how many manifests a background scan reads at once.
import type { PodLoader } from "../manifest";
import type { FileRecord } from "./file-records";
import type { WatchedDirectoryOptions } from "./watched-directory";

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

/**
 * How long a scan lets pending watch events arrive before it trusts "only renamed into place": a
 * write that happened before the file was read has queued its "change" event by then. Counted from
 * the read, so the time the scan spends loading the manifest already counts towards it.
 */
export const EVENT_GRACE_MS = 5;
/** A record only the watch can settle: its name, and when its bytes were read (performance.now()). */
export type AwaitingEvents = [FileRecord, string, number];
/**
 * A background scan reads at most this many new or changed manifests, and the next scan, which
 * follows at once, reads the rest: loading a manifest costs milliseconds, so when many are written
 * at once the first pods start after a few are loaded, not after all of them. Files left for the
 * next scan count as present and keep what they gave before. The first read of the path, which makes
 * the source's set complete, reads everything.
 */
export const MAX_READS_PER_SCAN = 4;
