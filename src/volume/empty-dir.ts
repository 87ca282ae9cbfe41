// emptyDir (k/k@1.24.1 pkg/volume/emptydir/empty_dir.go): on disk a 0777 directory; with
// `medium: Memory` a tmpfs. The secret, downwardAPI and projected plugins wrap a Memory emptyDir
// too, so the same size rule serves them. With SizeMemoryBackedVolumes (beta, on in 1.24) the tmpfs
// gets `size=<bytes>` = the smallest of node allocatable memory, the pod's memory limit when every
// container declares one (cm.ResourceConfigForPod), and the volume's sizeLimit
// (calculateEmptyDirMemorySize); a value ≤ 0 does not count. With none of them the kernel's default
// applies (half the RAM).
import type { Container, Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../api/quantity";

/** A disk emptyDir's mode (empty_dir.go `perm`): any user of the pod may write. */
export const EMPTY_DIR_MODE = 0o777;

function memoryLimit(c: Container): number {
  const q = c.resources?.limits?.memory;
  return q === undefined ? 0 : parseQuantity(q).value();
}

/**
 * The pod's memory limit as its cgroup gets it (ResourceConfigForPod): the sum of the app
 * containers' limits, at least the largest init container's, plus the pod overhead; undefined when
 * some app container has no memory limit (the pod is then unbounded).
 */
export function podMemoryLimitBytes(pod: Pod): number | undefined {
  const containers = pod.spec?.containers ?? [];
  if (containers.length === 0 || containers.some((c) => memoryLimit(c) === 0)) return undefined;
  let sum = containers.reduce((n, c) => n + memoryLimit(c), 0);
  for (const c of pod.spec?.initContainers ?? []) sum = Math.max(sum, memoryLimit(c));
  const overhead = pod.spec?.overhead?.memory;
  if (overhead !== undefined) sum += parseQuantity(overhead).value();
  return sum;
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
