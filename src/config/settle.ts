// When a manifest file's content may be acted on: the SETTLE rule the static pod path and
// --local-objects share. A file's current content is acted on only once it has settled:
//   - its bytes are the ones already acted on, or those of its last good content (a revert);
//   - or it was renamed into place: ctime strictly after mtime, to the nanosecond (the last operation
//     on the inode was a rename, link or chmod after the last write), or, since a write and a rename
//     in the same timer tick leave ctime equal to mtime, the watch saw the name only renamed into
//     place (the static pod path checks that: settleVerdict answers "events");
//   - or it has been still for the settle window: its stat key (inode, size, mtime, ctime) unchanged
//     since we first saw it that long ago, or its ctime that old by the wall clock (a file found at
//     start, or by a rescan long after it was written).
// Until then the file keeps serving what it served, so a two-step write whose first half happens to
// be valid never serves that half. A failure that waiting cannot fix (over the size limit,
// unreadable) is final at once; a file over the limit is never read past limit + 1 bytes, so no
// prefix of it is ever decoded.
import { createHash } from "node:crypto";
import type { BigIntStats } from "node:fs";
import { MAX_MANIFEST_BYTES, readFileCapped, statKey, tooLargeMessage } from "./source-limits";

/** What settling tracks of one file between scans. */
export interface FileVersion {
  /**
   * The stat key of the version last read: while a scan finds the same key the bytes are not read
   * again, so a scan of a large directory costs one stat a file. "" before the first read (a record
   * restored from a state); prefixed "changing:" when the file changed while it was read.
   */
  statKey: string;
  /** When this stat key was first seen, by the agent's clock. */
  statSince: number;
  /** sha256 of the bytes last read, or a marker when they could not be read. */
  hash: string;
  /** The read failed for a reason that waiting cannot fix (unreadable, too large): no settling. */
  final: boolean;
  /** Whether the bytes last read have been acted on. */
  settled: boolean;
  /** The hash of the content last acted on. */
  acceptedHash?: string;
  /** The hash of the last content that loaded: what the file serves. */
  goodHash?: string;
}

/** One read of a file: its bytes as text, or why they cannot be used (`failure`, final). */
export type FileRead =
  | { kind: "gone" }
  | { kind: "read"; hash: string; key: string; st: BigIntStats; text: string; failure?: undefined }
  | { kind: "read"; hash: string; key: string; st: BigIntStats; text?: undefined; failure: string };

/** Reads a file found with stat `st`, at most MAX_MANIFEST_BYTES + 1 bytes of it. */
export async function readVersion(file: string, st: BigIntStats): Promise<FileRead> {
  const r = await readFileCapped(file, MAX_MANIFEST_BYTES);
  if (r.kind === "gone") return { kind: "gone" };
  if (r.kind === "bytes") {
    const hash = createHash("sha256").update(r.bytes).digest("hex");
    return { kind: "read", hash, key: r.stable ? r.key : `changing:${r.key}`, st: r.st, text: r.bytes.toString("utf8") };
  }
  // Never decoded, not even its first 10 MB: no prefix of an oversized file runs.
  if (r.kind === "too-large") return { kind: "read", hash: `too-large:${r.size}`, key: r.key, st: r.st, failure: tooLargeMessage(r.size) };
  return { kind: "read", hash: `unreadable:${r.code ?? r.message}`, key: statKey(st), st, failure: `cannot read: ${r.message}` };
}

/** A version never read yet, first seen now. */
export function newVersion(now: number): FileVersion {
  return { statKey: "", statSince: now, hash: "", final: false, settled: false };
}

/**
 * Records a read in `rec`: a new stat key restarts its stillness, new bytes are unsettled. True when
 * the content changed (the caller loads the new bytes).
 */
export function noteRead(rec: FileVersion, read: { hash: string; key: string; failure?: string }, now: number): boolean {
  if (rec.statKey !== read.key) {
    rec.statKey = read.key;
    rec.statSince = now;
  }
  if (rec.hash === read.hash) return false;
  rec.hash = read.hash;
  rec.final = read.failure !== undefined;
  rec.settled = false;
  return true;
}

/**
 * Whether the record's current content has settled (see the file's comment). "events" when only
 * the watch could settle it now (it may have been renamed into place in the same tick as written),
 * "wait" when it is still changing; `waitMs` is how long until the window ends.
 */
export function settleVerdict(
  rec: FileVersion,
  st: BigIntStats,
  now: number,
  wallNow: number,
  settleMs: number,
): { verdict: "settled" } | { verdict: "events" | "wait"; waitMs: number } {
  // Still since we first saw this version, or since its ctime (any write moves it) by the wall clock.
  const stillFor = Math.max(now - rec.statSince, wallNow - Number(st.ctimeNs / 1_000_000n));
  const changing = rec.statKey.startsWith("changing:");
  const settled = rec.final || rec.hash === rec.acceptedHash || rec.hash === rec.goodHash || (!changing && (st.ctimeNs > st.mtimeNs || stillFor >= settleMs));
  if (settled) return { verdict: "settled" };
  return { verdict: changing ? "wait" : "events", waitMs: Math.max(1, settleMs - stillFor) };
}
