// GET /debug/heap: what the agent's JavaScript heap holds, by type, after a full collection, so that a
// soak run can compare early and late and see which kind of object accumulates (bench/soak.ts saves
// one per sample with SOAK_HEAP_DIR). Authorized like the kubelet's /debug/pprof: subresource proxy,
// and not part of the anonymous read-only view. The full GC it forces costs tens of milliseconds.
import { heapStats } from "bun:jsc";

export interface HeapReport {
  objectCount: number;
  heapSize: number;
  heapCapacity: number;
  extraMemorySize: number;
  protectedObjectCount: number;
  objectTypeCounts: Record<string, number>;
  protectedObjectTypeCounts: Record<string, number>;
}

/** A synchronous full GC, then the heap's counts by type (most numerous first). */
export function heapReport(): HeapReport {
  Bun.gc(true);
  const s = heapStats();
  const sorted = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort((a, b) => b[1] - a[1]));
  return {
    objectCount: s.objectCount,
    heapSize: s.heapSize,
    heapCapacity: s.heapCapacity,
    extraMemorySize: s.extraMemorySize,
    protectedObjectCount: s.protectedObjectCount,
    objectTypeCounts: sorted(s.objectTypeCounts),
    protectedObjectTypeCounts: sorted(s.protectedObjectTypeCounts),
  };
}
