// A DiskUsage (src/stats/disk-usage.ts) that answers from a table the test fills: bytes (and inodes)
// per folder, or an error to throw; a folder not in the table does not exist. It records every folder
// asked for.
import type { DiskUsage, DiskUsageOptions, FolderUsage } from "../../src/stats/disk-usage";

export class FakeDiskUsage implements DiskUsage {
  /** A number is bytes, with one inode. */
  readonly table = new Map<string, number | FolderUsage | Error>();
  readonly asked: { path: string; stopAbove?: number }[] = [];

  async usage(path: string, o: DiskUsageOptions = {}): Promise<FolderUsage | undefined> {
    this.asked.push({ path, stopAbove: o.stopAbove });
    const u = this.table.get(path);
    if (u instanceof Error) throw u;
    return typeof u === "number" ? { bytes: u, inodes: 1 } : u;
  }
}
