// What the polling sources (static pod path, manifest URL) read at most, and the readers that hold to
// it: a manifest is never read past the kubelet's maxConfigLength (10 MB) plus one byte — enough to
// know it is too large — so an oversized file or body is refused without any prefix of it being
// decoded, and without the agent ever holding more of it than the limit (a URL's body is read by
// src/util/capped-body.ts). A source delivers at most MAX_PODS_PER_SOURCE pods.
import type { BigIntStats } from "node:fs";
import { open } from "node:fs/promises";
import { constants } from "node:fs";
import { MAX_MANIFEST_BYTES, tooLargeMessage } from "../manifest";
import { errorCode, errorMessage } from "../util";

export { MAX_MANIFEST_BYTES, tooLargeMessage };

/**
 * The most pods one file or URL source hands on. The kubelet has no such bound; its --max-pods (110 by
 * default) only admits pods. A PodList past it is an error that keeps the last good set: a runaway
 * generator must not make the agent decode, store and sync tens of thousands of pods.
 */
export const MAX_PODS_PER_SOURCE = 1000;

export function tooManyPodsMessage(count: number): string {
  return `${count} pods, over the limit of ${MAX_PODS_PER_SOURCE} pods per source`;
}

/**
 * What identifies a version of a file without reading it: inode, size, mtime and ctime, to the
 * nanosecond. Any write moves mtime and ctime, a rename-into-place changes the inode, so while the key
 * is unchanged the bytes are too.
 */
export function statKey(st: BigIntStats): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

export type CappedFile =
  | { kind: "bytes"; bytes: Buffer; st: BigIntStats; key: string; stable: boolean }
  | { kind: "too-large"; size: number; st: BigIntStats; key: string }
  | { kind: "gone" }
  | { kind: "error"; message: string; code?: string };

/**
 * Reads a regular file, at most `limit + 1` bytes of it. `stable` is false when the file changed while
 * it was read (its stat key before and after differ): the bytes may be a mix of two versions. Opened
 * non-blocking, so a FIFO put in place of a manifest cannot hang the scan. Symlinks are followed, as
 * the kubelet's os.Stat and ReadFile follow them.
 */
export async function readFileCapped(file: string, limit = MAX_MANIFEST_BYTES): Promise<CappedFile> {
  let fh;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (errorCode(e) === "ENOENT") return { kind: "gone" };
    return { kind: "error", message: errorMessage(e), code: errorCode(e) };
  }
  try {
    const st = (await fh.stat({ bigint: true })) as BigIntStats;
    if (!st.isFile()) return { kind: "error", message: "not a regular file" };
    const key = statKey(st);
    if (st.size > BigInt(limit)) return { kind: "too-large", size: Number(st.size), st, key };
    // Sized from the stat, grown if the file grows while being read, never past limit + 1.
    let buf = Buffer.allocUnsafe(Math.min(Number(st.size), limit) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (buf.length > limit) break;
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, limit + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    const after = (await fh.stat({ bigint: true })) as BigIntStats;
    if (n > limit) return { kind: "too-large", size: Math.max(n, Number(after.size)), st: after, key: statKey(after) };
    return { kind: "bytes", bytes: buf.subarray(0, n), st, key, stable: statKey(after) === key };
  } catch (e) {
    if (errorCode(e) === "ENOENT") return { kind: "gone" };
    return { kind: "error", message: errorMessage(e), code: errorCode(e) };
  } finally {
    await fh.close().catch(() => {});
  }
}
