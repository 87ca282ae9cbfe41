// usageNanoCores from cumulative cpu time: the kubelet keeps the previous sample of each container,
// pod and the node (its cpuUsageCache, pkg/kubelet/stats/cri_stats_provider.go) and reports the
// average rate since then; the first sample of anything has no rate, so usageNanoCores is left out.
// Samples of what was not seen in a round are dropped (prune) so a gone container's entry goes too.

export interface CpuSample {
  /** When the sample was taken, in nanoseconds (the runtime's timestamp or the clock's). */
  timestampNs: number;
  usageCoreNanoSeconds: number;
}

export class CpuUsageCache {
  private readonly last = new Map<string, CpuSample>();
  private seen = new Set<string>();

  /** The rate since the previous sample of `key` (undefined for the first, or a counter that went back). */
  nanoCores(key: string, s: CpuSample): number | undefined {
    this.seen.add(key);
    const prev = this.last.get(key);
    if (!prev || s.timestampNs > prev.timestampNs) this.last.set(key, s);
    if (!prev || s.timestampNs <= prev.timestampNs || s.usageCoreNanoSeconds < prev.usageCoreNanoSeconds) return undefined;
    return Math.round(((s.usageCoreNanoSeconds - prev.usageCoreNanoSeconds) / (s.timestampNs - prev.timestampNs)) * 1e9);
  }

  /** Forgets every key not asked about since the last prune. */
  prune(): void {
    for (const k of this.last.keys()) if (!this.seen.has(k)) this.last.delete(k);
    this.seen = new Set();
  }
}
