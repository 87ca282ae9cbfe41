// A DiskUsage (src/eviction/disk-usage.ts) that answers from a table the test fills: bytes per folder,
// or an error to throw; a folder not in the table does not exist. It records every folder asked for.
import type { DiskUsage, DiskUsageOptions } from "../../src/eviction/disk-usage";

export class FakeDiskUsage implements DiskUsage {
  readonly usage = new Map<string, number | Error>();
  readonly asked: { path: string; stopAbove?: number }[] = [];

  async bytesUsed(path: string, o: DiskUsageOptions = {}): Promise<number | undefined> {
    this.asked.push({ path, stopAbove: o.stopAbove });
    const u = this.usage.get(path);
    if (u instanceof Error) throw u;
    return u;
  }
}
