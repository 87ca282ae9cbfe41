// Ranking the pods for eviction, and the message an evicted pod gets (k/k@1.24.1
// pkg/kubelet/eviction/helpers.go rankMemoryPressure, rankPIDPressure, rankDiskPressureFunc,
// buildSignalToRankFunc, evictionMessage). The first pod of the ranking is the first to go:
//   memory   pods whose working set exceeds their memory request, then lower priority, then the
//            larger usage above the request;
//   pids     lower priority, then more processes;
//   disk     pods whose usage exceeds their ephemeral-storage request, then lower priority, then the
//            larger usage above the request (inodes: no request, the larger count). What counts as a
//            pod's usage depends on the signal: with a dedicated image filesystem, nodefs signals
//            measure logs and local volumes, imagefs signals the containers' writable layers; on one
//            filesystem, all three.
// A pod without stats ranks first in each comparison that needs them, as the kubelet's.
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { podPriority, Quantity, QuantityError, tryParseQuantity } from "../api";
import type { PodStats } from "../stats";
import type { PodStatsLookup, Signal, StarvedResource } from "./signals";

type Cmp = (a: Pod, b: Pod) => number;

/** cmpBool: true first. */
function cmpBool(a: boolean, b: boolean): number {
  return a === b ? 0 : a ? -1 : 1;
}

function orderedBy(...cmps: Cmp[]): Cmp {
  return (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };
}

/** Lower priority first (corev1helpers.PodPriority: spec.priority, a built-in class by name, else 0). */
const priority: Cmp = (a, b) => podPriority(a) - podPriority(b);

function quantityValue(q: string | number | undefined): number {
  if (q === undefined) return 0;
  const p = tryParseQuantity(q);
  return p instanceof QuantityError ? 0 : p.value();
}

/**
 * GetResourceRequestQuantity: the sum of the containers' requests, or the largest init container's
 * if that is more, plus the pod overhead when there is a request. Requests are defaulted from limits
 * when the pod is decoded (src/api/defaults.ts), as the API server does.
 */
export function podRequest(pod: Pod, resource: string): number {
  let sum = 0;
  for (const c of pod.spec?.containers ?? []) sum += quantityValue(c.resources?.requests?.[resource]);
  for (const c of pod.spec?.initContainers ?? []) sum = Math.max(sum, quantityValue(c.resources?.requests?.[resource]));
  const overhead = pod.spec?.overhead?.[resource];
  if (sum > 0 && overhead !== undefined) sum += quantityValue(overhead);
  return sum;
}

const memoryUsage = (s: PodStats): number => s.memory?.workingSetBytes ?? 0;

function withStats(stats: PodStatsLookup, f: (a: PodStats, b: PodStats, pa: Pod, pb: Pod) => number): Cmp {
  return (pa, pb) => {
    const a = stats(pa);
    const b = stats(pb);
    if (!a || !b) return cmpBool(!a, !b);
    return f(a, b, pa, pb);
  };
}

export function rankMemoryPressure(pods: Pod[], stats: PodStatsLookup): void {
  const exceeds = withStats(stats, (a, b, pa, pb) => cmpBool(memoryUsage(a) > podRequest(pa, "memory"), memoryUsage(b) > podRequest(pb, "memory")));
  const usage = withStats(stats, (a, b, pa, pb) => memoryUsage(b) - podRequest(pb, "memory") - (memoryUsage(a) - podRequest(pa, "memory")));
  pods.sort(orderedBy(exceeds, priority, usage));
}

export function rankPIDPressure(pods: Pod[], stats: PodStatsLookup): void {
  const processes = withStats(stats, (a, b) => (b.process_stats?.process_count ?? 0) - (a.process_stats?.process_count ?? 0));
  pods.sort(orderedBy(priority, processes));
}

/** What a disk signal measures of a pod (fsStatsType). */
export type FsStatsType = "root" | "logs" | "localVolumeSource";

/** IsLocalEphemeralVolume, and hostPath (localVolumeNames). */
function isLocalVolume(v: Volume): boolean {
  return !!v.hostPath || !!v.gitRepo || !!v.configMap || (!!v.emptyDir && v.emptyDir.medium !== "Memory");
}

/** podDiskUsage: bytes and inodes of what `measure` names. */
export function podDiskUsage(s: PodStats, pod: Pod, measure: readonly FsStatsType[]): { bytes: number; inodes: number } {
  let bytes = 0;
  let inodes = 0;
  for (const c of s.containers) {
    if (measure.includes("root") && c.rootfs) {
      bytes += c.rootfs.usedBytes ?? 0;
      inodes += c.rootfs.inodesUsed ?? 0;
    }
    if (measure.includes("logs") && c.logs) {
      bytes += c.logs.usedBytes ?? 0;
      inodes += c.logs.inodesUsed ?? 0;
    }
  }
  if (measure.includes("localVolumeSource")) {
    const local = new Set((pod.spec?.volumes ?? []).filter(isLocalVolume).map((v) => v.name));
    for (const v of s.volume ?? []) {
      if (!local.has(v.name)) continue;
      bytes += v.usedBytes ?? 0;
      inodes += v.inodesUsed ?? 0;
    }
  }
  return { bytes, inodes };
}

function rankDiskPressure(measure: readonly FsStatsType[], resource: "ephemeral-storage" | "inodes") {
  return (pods: Pod[], stats: PodStatsLookup): void => {
    const used = (s: PodStats, p: Pod) => {
      const u = podDiskUsage(s, p, measure);
      return resource === "inodes" ? u.inodes : u.bytes;
    };
    // Pods request ephemeral-storage only; inodes have no request.
    const request = (p: Pod) => (resource === "inodes" ? 0 : podRequest(p, "ephemeral-storage"));
    const exceeds = withStats(stats, (a, b, pa, pb) => cmpBool(used(a, pa) > request(pa), used(b, pb) > request(pb)));
    const usage = withStats(stats, (a, b, pa, pb) => used(b, pb) - request(pb) - (used(a, pa) - request(pa)));
    pods.sort(orderedBy(exceeds, priority, usage));
  };
}

export type RankFunc = (pods: Pod[], stats: PodStatsLookup) => void;

/** buildSignalToRankFunc. */
export function rankFuncFor(signal: Signal, dedicatedImageFs: boolean): RankFunc {
  switch (signal) {
    case "memory.available":
    case "allocatableMemory.available":
      return rankMemoryPressure;
    case "pid.available":
      return rankPIDPressure;
    case "nodefs.available":
      return rankDiskPressure(dedicatedImageFs ? ["logs", "localVolumeSource"] : ["root", "logs", "localVolumeSource"], "ephemeral-storage");
    case "nodefs.inodesFree":
      return rankDiskPressure(dedicatedImageFs ? ["logs", "localVolumeSource"] : ["root", "logs", "localVolumeSource"], "inodes");
    case "imagefs.available":
      return rankDiskPressure(dedicatedImageFs ? ["root"] : ["root", "logs", "localVolumeSource"], "ephemeral-storage");
    case "imagefs.inodesFree":
      return rankDiskPressure(dedicatedImageFs ? ["root"] : ["root", "logs", "localVolumeSource"], "inodes");
  }
}

/** Bytes as resource.NewQuantity(n, BinarySI).String() prints them: 1572864 → "1536Ki". */
function binarySI(bytes: number): string {
  return new Quantity(BigInt(Math.max(0, Math.trunc(bytes))), 0, "BinarySI").toString();
}

/**
 * evictionMessage: `The node was low on resource: <resource>. `, then for memory and
 * ephemeral-storage each container using more than it requests:
 * `Container <name> was using <usage>, which exceeds its request of <request>. `.
 */
export function evictionMessage(resource: StarvedResource, pod: Pod, stats: PodStatsLookup): string {
  let message = `The node was low on resource: ${resource}. `;
  const s = stats(pod);
  if (!s || (resource !== "memory" && resource !== "ephemeral-storage")) return message;
  for (const cs of s.containers) {
    for (const c of pod.spec?.containers ?? []) {
      if (c.name !== cs.name) continue;
      const requestText = c.resources?.requests?.[resource];
      const parsed = requestText === undefined ? undefined : tryParseQuantity(requestText);
      const request = parsed === undefined || parsed instanceof QuantityError ? undefined : parsed;
      let usage: number | undefined;
      if (resource === "memory") usage = cs.memory?.workingSetBytes;
      else if (cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined) usage = cs.rootfs.usedBytes + cs.logs.usedBytes;
      if (usage !== undefined && usage > (request?.value() ?? 0)) {
        message += `Container ${c.name} was using ${binarySI(usage)}, which exceeds its request of ${request?.toString() ?? "0"}. `;
      }
    }
  }
  return message;
}
