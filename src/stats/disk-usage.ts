// DiskUsage: how many bytes and inodes a folder takes on disk, counted as the kubelet counts a volume's usage
// (k/k@1.24.1 pkg/volume/util/fs/fs.go DiskUsage, which emptyDir's MetricsDu uses): st_blocks × 512 of
// the folder and everything under it, walked without following symlinks, a file with several hard
// links counted once, nothing below a mount point of another device (filepath.SkipDir), and a file
// that vanishes during the walk ignored. The stats provider (volumes, logs) and the eviction manager
// (emptyDir sizeLimit) measure through it; their tests use a fake (test/fakes/disk-usage.ts).
import { lstatSync, readdirSync, type BigIntStats } from "node:fs";
import { join } from "node:path";

export interface DiskUsageOptions {
  /**
   * Stop counting once the total is above this many bytes: the caller only needs to know that a limit
   * is exceeded, and a folder being filled as fast as the disk allows is not walked to its end.
   */
  stopAbove?: number;
}

/** What a folder uses: bytes on disk, and inodes (the folder, and each entry counted once). */
export interface FolderUsage {
  bytes: number;
  inodes: number;
}

export interface DiskUsage {
  /** What the folder uses on disk; undefined when it does not exist (a volume not made yet, or gone). */
  usage(path: string, o?: DiskUsageOptions): Promise<FolderUsage | undefined>;
}

/**
 * How many entries are stat'ed between two turns of the event loop. The walk uses synchronous calls
 * (one thread-pool round trip per file would make a large tree slow for nothing on a busy node) and
 * yields this often, so that a volume with millions of files delays the sync loop by a few ms at a
 * time, never for the whole walk.
 */
export const WALK_YIELD_EVERY = 256;

const isNotFound = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The real DiskUsage: a walk of the folder with lstat. */
export class WalkDiskUsage implements DiskUsage {
  constructor(private readonly yieldEvery = WALK_YIELD_EVERY) {}

  async usage(path: string, o: DiskUsageOptions = {}): Promise<FolderUsage | undefined> {
    let root: BigIntStats;
    try {
      root = lstatSync(path, { bigint: true });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const seenInodes = new Set<bigint>();
    let bytes = 0;
    let inodes = 0;
    let sinceYield = 0;
    const stack: { path: string; stat: BigIntStats }[] = [{ path, stat: root }];
    while (stack.length) {
      const { path: p, stat } = stack.pop()!;
      // Only hard-linked files can be met twice; keeping every inode would cost memory for nothing.
      if (stat.nlink > 1n && !stat.isDirectory()) {
        if (seenInodes.has(stat.ino)) continue;
        seenInodes.add(stat.ino);
      }
      bytes += Number(stat.blocks) * 512;
      inodes++;
      if (o.stopAbove !== undefined && bytes > o.stopAbove) return { bytes, inodes };
      if (!stat.isDirectory()) continue;
      let names: string[];
      try {
        names = readdirSync(p);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      for (const name of names) {
        if (++sinceYield >= this.yieldEvery) {
          sinceYield = 0;
          await nextTurn();
        }
        const child = join(p, name);
        let st: BigIntStats;
        try {
          st = lstatSync(child, { bigint: true });
        } catch (err) {
          if (isNotFound(err)) continue;
          throw err;
        }
        if (st.dev !== root.dev) continue;
        stack.push({ path: child, stat: st });
      }
    }
    return { bytes, inodes };
  }
}
