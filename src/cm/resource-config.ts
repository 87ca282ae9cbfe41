// The values the kubelet writes into a cgroup (k/k@1.24.1 pkg/kubelet/cm/types.go ResourceConfig and
// helpers_linux.go), from a pod's requests and limits:
//   cpu.shares     = milliCPU × 1024 / 1000, clamped to [2, 262144] (MilliCPUToShares; no request: 2)
//   cfs quota      = milliCPU × period / 1000, at least 1000 µs, period 100000 µs (MilliCPUToQuota)
//   memory limit   = the limit in bytes
// and, for the pod's own cgroup, ResourceConfigForPod: the containers' requests and limits summed,
// an init container counting as the max of it and that sum (PodRequestsAndLimits), the pod overhead
// added; then by QoS class
//   Guaranteed  shares, quota and period, memory limit
//   Burstable   shares; quota and period only if every app container has a cpu limit; the memory
//               limit only if every app container has a memory limit
//   BestEffort  shares 2, nothing else.
// On cgroup v2 runc turns shares into cpu.weight (1 + (shares − 2) × 9999 / 262142,
// ConvertCPUSharesToCgroupV2Value); the cgroup manager writes that.
import type { Container, Pod } from "kubernetes-types/core/v1";
import { aggregateContainers, tryParseQuantity } from "../api";
import { qosClass } from "./qos";

/** What a cgroup is given; an unset field is left as it is (as the kubelet's nil pointers). */
export interface ResourceConfig {
  cpuShares?: number;
  /** µs per period; only written with cpuPeriod. */
  cpuQuota?: number;
  cpuPeriod?: number;
  memoryLimitBytes?: number;
  pidsLimit?: number;
}

export const MIN_SHARES = 2;
export const MAX_SHARES = 262144;
export const SHARES_PER_CPU = 1024;
/** cpuCFSQuotaPeriod's default, 100 ms, in µs (QuotaPeriod). */
export const QUOTA_PERIOD_US = 100_000;
/** The smallest quota the kubelet sets, 1 ms (MinQuotaPeriod). */
export const MIN_QUOTA_PERIOD_US = 1000;

export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu <= 0) return MIN_SHARES;
  const shares = Math.floor((milliCpu * SHARES_PER_CPU) / 1000);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** 0 (no quota) for no limit. */
export function milliCpuToQuota(milliCpu: number, periodUs = QUOTA_PERIOD_US): number {
  if (milliCpu <= 0) return 0;
  return Math.max(MIN_QUOTA_PERIOD_US, Math.floor((milliCpu * periodUs) / 1000));
}

/** runc's ConvertCPUSharesToCgroupV2Value: shares [2, 262144] onto cpu.weight [1, 10000]; 0 stays unset. */
export function sharesToWeight(shares: number): number {
  if (shares === 0) return 0;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

/** A resource in the unit the kubelet reads it in: MilliValue for cpu, Value for the rest. */
function amount(resource: string, q: string | number | undefined): number | undefined {
  if (q === undefined) return undefined;
  const v = tryParseQuantity(q);
  if (v instanceof Error) return undefined;
  return resource === "cpu" ? v.milli() : v.value();
}

export type ResourceAmounts = Map<string, number>;

function add(into: ResourceAmounts, list: Record<string, string | number> | undefined): void {
  for (const [r, q] of Object.entries(list ?? {})) {
    const v = amount(r, q);
    if (v !== undefined) into.set(r, (into.get(r) ?? 0) + v);
  }
}

/** A resource list as amounts. */
function amounts(list: Record<string, string | number> | undefined): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  add(out, list);
  return out;
}

/** A container's requests, each defaulting to its limit (SetDefaults_Pod; the kubelet repeats it). */
function requestsOf(c: Container): Record<string, string | number> {
  return { ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) };
}

/**
 * PodRequestsAndLimits: the app containers and sidecars summed, each regular init container (with the
 * sidecars started before it) taken when larger: the scheduler's and admission's formula
 * (aggregateContainers, KEP-753); the overhead added to the requests and to the limits that are set.
 */
export function podRequestsAndLimits(pod: Pod): { requests: ResourceAmounts; limits: ResourceAmounts } {
  const requests = aggregateContainers(pod, (c) => amounts(requestsOf(c)));
  const limits = aggregateContainers(pod, (c) => amounts(c.resources?.limits));
  const overhead = pod.spec?.overhead;
  if (overhead) {
    add(requests, overhead);
    for (const [r, q] of Object.entries(overhead)) {
      const v = amount(r, q);
      if (v !== undefined && limits.has(r)) limits.set(r, limits.get(r)! + v);
    }
  }
  return { requests, limits };
}

/** ResourceConfigForPod (enforceCPULimits, the kubelet's --cpu-cfs-quota, is on). */
export function resourceConfigForPod(pod: Pod, periodUs = QUOTA_PERIOD_US): ResourceConfig {
  const { requests, limits } = podRequestsAndLimits(pod);
  const cpuShares = milliCpuToShares(requests.get("cpu") ?? 0);
  const cpuQuota = milliCpuToQuota(limits.get("cpu") ?? 0, periodUs);
  const memoryLimitBytes = limits.get("memory") ?? 0;
  const app = pod.spec?.containers ?? [];
  const isSet = (c: Container, r: string) => (amount(r, c.resources?.limits?.[r]) ?? 0) !== 0;
  const cpuLimitsDeclared = app.every((c) => isSet(c, "cpu"));
  const memoryLimitsDeclared = app.every((c) => isSet(c, "memory"));
  switch (qosClass(pod)) {
    case "Guaranteed":
      return { cpuShares, cpuQuota, cpuPeriod: periodUs, memoryLimitBytes };
    case "Burstable":
      return {
        cpuShares,
        ...(cpuLimitsDeclared ? { cpuQuota, cpuPeriod: periodUs } : {}),
        ...(memoryLimitsDeclared ? { memoryLimitBytes } : {}),
      };
    default:
      return { cpuShares: MIN_SHARES };
  }
}

/** getCgroupConfig: the node allocatable cgroup's values from a cpu and memory amount. */
export function resourceConfigForAmounts(a: { milliCpu?: number; memoryBytes?: number }): ResourceConfig {
  return {
    ...(a.milliCpu !== undefined ? { cpuShares: milliCpuToShares(a.milliCpu) } : {}),
    ...(a.memoryBytes !== undefined ? { memoryLimitBytes: a.memoryBytes } : {}),
  };
}
