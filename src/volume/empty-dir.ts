// emptyDir (k/k@1.24.1 pkg/volume/emptydir/empty_dir.go): on disk a 0777 directory; with
// `medium: Memory` a tmpfs. The secret, downwardAPI and projected plugins wrap a Memory emptyDir
// too, so the same size rule serves them. With SizeMemoryBackedVolumes (beta, on in 1.24) the tmpfs
// gets `size=<bytes>` = the smallest of node allocatable memory, the pod's memory limit when every
// container declares one (cm.ResourceConfigForPod), and the volume's sizeLimit
// (calculateEmptyDirMemorySize); a value ≤ 0 does not count. With none of them the kernel's default
// applies (half the RAM).
import type { Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../api";
import { resourceConfigForPod } from "../cm";

/** A disk emptyDir's mode (empty_dir.go `perm`): any user of the pod may write. */
export const EMPTY_DIR_MODE = 0o777;

/**
 * The pod's memory limit as its cgroup gets it (the kubelet's calculateEmptyDirMemorySize asks
 * cm.ResourceConfigForPod, src/cm): the sum of the app containers' limits, at least the largest init
 * container's, plus the pod overhead; undefined when some app container has no memory limit (the pod
 * is then unbounded).
 */
export function podMemoryLimitBytes(pod: Pod): number | undefined {
  return resourceConfigForPod(pod).memoryLimitBytes;
}

/**
 * The size of a memory-backed volume's tmpfs, in bytes, or undefined for the kernel's default.
 * `sizeLimit` is the emptyDir's (the wrapped emptyDir of secret/downwardAPI/projected has none).
 */
export function memoryVolumeSizeBytes(pod: Pod, sizeLimit: string | number | undefined, nodeAllocatableMemory?: string | number): number | undefined {
  const candidates = [
    nodeAllocatableMemory === undefined ? 0 : parseQuantity(nodeAllocatableMemory).value(),
    podMemoryLimitBytes(pod) ?? 0,
    sizeLimit === undefined ? 0 : parseQuantity(sizeLimit).value(),
  ].filter((n) => n > 0);
  return candidates.length ? Math.min(...candidates) : undefined;
}
