// The static pod path's manifests as records, and the set they make: each manifest contributes the
// pods of the last content of it that loaded (its "last good" pods), in file order, with the
// duplicates and the pods-per-source limit applied (file-source.ts reads and settles the records).
import type { Pod } from "kubernetes-types/core/v1";
import { podKey } from "../api";
import type { LoadResult, ManifestError } from "../manifest";
import type { FileVersion } from "./settle";
import { MAX_PODS_PER_SOURCE, tooManyPodsMessage } from "./source-limits";
import type { LastGood } from "./source-state";
import { byteOrder } from "./watched-directory";

/** What we know of one manifest file, kept between scans. */
export interface FileRecord extends FileVersion {
  /** What loading the bytes last read gave. */
  result: LoadResult;
  /** The pods of the last content that loaded (goodHash): what the file contributes. */
  pods: Pod[];
  /** The errors of the content acted on, if it did not load. */
  errors: ManifestError[];
  /** When a scan first found the file gone; its pods stay until it has been gone for the window. */
  goneSince?: number;
}

/** A record restored from the state: its file is read at the first scan, and until then it gives its last good pods. */
export function restoredRecord(good: LastGood): FileRecord {
  return {
    statKey: "",
    statSince: 0,
    hash: "",
    result: { ok: true, pods: good.pods },
    final: false,
    settled: false,
    goodHash: good.hash,
    pods: good.pods,
    errors: [],
  };
}

/** Records not found by this read (not in `present`): gone once they have been missing for the settle window. */
export function expireGone(records: Map<string, FileRecord>, present: ReadonlySet<string>, now: number, settleMs: number): void {
  for (const [file, rec] of [...records]) {
    if (present.has(file)) rec.goneSince = undefined;
    else if (rec.goneSince === undefined) rec.goneSince = now;
    else if (now - rec.goneSince >= settleMs) records.delete(file);
  }
}

/** What the state keeps across restarts: each file's last good content, by hash, and its pods. */
export function lastGoodEntries(records: ReadonlyMap<string, FileRecord>): Map<string, LastGood> {
  const entries = new Map<string, LastGood>();
  for (const [file, rec] of records) if (rec.goodHash !== undefined) entries.set(file, { hash: rec.goodHash, pods: rec.pods });
  return entries;
}

/** An error about a file as a whole (no position inside it). */
export function documentError(file: string, msg: string): ManifestError {
  return { file, line: 1, column: 1, field: "", message: msg };
}

/** Acts on the record's current content: its pods if it loaded; if not, its errors, and the last good pods stay. */
export function acceptRecord(rec: FileRecord): void {
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

/**
 * The set in file order. Two files naming the same pod: the first in sort order wins (as the
 * kubelet's dedupe, kubernetes PR #142028, keeps it) and the later one is an error naming both.
 * Past MAX_PODS_PER_SOURCE, the pods handed on last time (`delivered`, UIDs) keep their place and
 * the others are errors. Returns the UIDs handed on this time.
 */
export function assembleRecords(
  records: ReadonlyMap<string, FileRecord>,
  entryErrors: ReadonlyMap<string, ManifestError[]>,
  pathErrors: readonly ManifestError[],
  delivered: ReadonlySet<string>,
): { pods: Pod[]; errors: ManifestError[]; delivered: Set<string> } {
  const candidates: { file: string; pod: Pod }[] = [];
  const errors: ManifestError[] = [...pathErrors];
  const owner = new Map<string, string>();
  const files = [...new Set([...records.keys(), ...entryErrors.keys()])].sort(byteOrder);
  // A file that went while another file names its pod (a manifest renamed): it has moved, not
  // vanished, so the gone one gives way at once, without a duplicate error.
  const present = new Set<string>();
  for (const rec of records.values()) if (rec.goneSince === undefined) for (const pod of rec.pods) present.add(podKey(pod));
  for (const file of files) {
    errors.push(...(entryErrors.get(file) ?? []));
    const rec = records.get(file);
    if (!rec) continue;
    errors.push(...rec.errors);
    for (const pod of rec.pods) {
      const key = podKey(pod);
      if (rec.goneSince !== undefined && present.has(key)) continue;
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
      candidates.push({ file, pod });
    }
  }
  let kept = candidates;
  if (candidates.length > MAX_PODS_PER_SOURCE) {
    const uid = (p: Pod) => p.metadata?.uid ?? "";
    const first = candidates.filter((c) => delivered.has(uid(c.pod)));
    const rest = candidates.filter((c) => !delivered.has(uid(c.pod)));
    const allowed = new Set([...first, ...rest].slice(0, MAX_PODS_PER_SOURCE));
    kept = candidates.filter((c) => allowed.has(c));
    for (const c of candidates) {
      if (!allowed.has(c)) errors.push(documentError(c.file, `not run: the static pod path has ${tooManyPodsMessage(candidates.length)}`));
    }
  }
  return { pods: kept.map((c) => c.pod), errors, delivered: new Set(kept.map((c) => c.pod.metadata?.uid ?? "")) };
}
