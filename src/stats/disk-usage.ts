// How much disk a folder holds, as `du -s` counts it (the kubelet's volume metrics and eviction's
// local storage accounting call du): allocated blocks (st_blocks × 512) of everything under it, the
// folder itself included, symlinks counted as themselves and never followed, a file with several
// hard links counted once, and the inodes used. The walk stays on the folder's filesystem (du -x)
// and hands the event loop back every WALK_BATCH entries, so a tree of a million files written by a
// pod costs time, never the agent's responsiveness. A folder that vanishes midway counts what was seen.
import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

export interface DiskUsage {
  bytes: number;
  inodes: number;
}

/** Measures a folder's usage; a fake in tests. */
export interface DiskUsageMeter {
  usage(path: string): Promise<DiskUsage | undefined>;
}

const WALK_BATCH = 256;

/** du -s -x -B1 and its inode count of `root`, or undefined when root does not exist. */
export async function diskUsage(root: string): Promise<DiskUsage | undefined> {
  let top;
  try {
    top = await lstat(root, { bigint: false });
  } catch {
    return undefined;
  }
  const seen = new Set<string>();
  let bytes = top.blocks * 512;
  let inodes = 1;
  let visited = 0;
  const stack: string[] = top.isDirectory() ? [root] : [];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      let st;
      try {
        st = await lstat(path);
      } catch {
        continue;
      }
      if (st.dev !== top.dev) continue;
      if (st.nlink > 1 && !st.isDirectory()) {
        const key = `${st.dev}:${st.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      bytes += st.blocks * 512;
      inodes++;
      if (st.isDirectory()) stack.push(path);
      if (++visited % WALK_BATCH === 0) await new Promise<void>((r) => setImmediate(r));
    }
  }
  return { bytes, inodes };
}

export const DU_METER: DiskUsageMeter = { usage: diskUsage };
