// The resource-allocation scorers NodeResourcesFit and NodeResourcesBalancedAllocation share
// (plugins/noderesources resource_allocation.go, least_allocated.go, most_allocated.go,
// requested_to_capacity_ratio.go), with upstream's integer arithmetic.
import { MAX_NODE_SCORE } from "../../framework/interface";
import type { NodeInfo } from "../../model/node-info";
import type { PodInfo } from "../../model/pod-info";
import { isScalarResourceName } from "../../model/resource";

export interface ResourceSpec {
  name: string;
  weight: number;
}

/** A utilization (0–100) to score (0–10) point of RequestedToCapacityRatio's shape. */
export interface UtilizationShapePoint {
  utilization: number;
  score: number;
}

/** config.MaxCustomPriorityScore: shape scores are 0–10, scaled ×10 to 0–100. */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const MAX_UTILIZATION = 100;

export type Scorer = (requested: readonly number[], allocatable: readonly number[]) => number;

/** LeastAllocated: (capacity − requested) × 100 / capacity per resource, weighted average. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/** MostAllocated: requested × 100 / capacity per resource (requested capped at capacity), weighted average. */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  const r = Math.min(requested, capacity);
  return Math.trunc((r * MAX_NODE_SCORE) / capacity);
}

/**
 * The weighted average of per-resource scores over the resources the node has. RequestedToCapacityRatio
 * leaves out resources scoring 0 and rounds; the others count every resource and truncate.
 */
function weightedAverage(
  resources: readonly ResourceSpec[],
  perResource: (requested: number, capacity: number) => number,
  onlyPositive: boolean,
  round: (x: number) => number,
): Scorer {
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const w = resources[i]!.weight;
      const score = perResource(requested[i]!, allocatable[i]!);
      if (onlyPositive && score <= 0) continue;
      nodeScore += score * w;
      weightSum += w;
    }
    return weightSum === 0 ? 0 : round(nodeScore / weightSum);
  };
}

export function leastResourceScorer(resources: readonly ResourceSpec[]): Scorer {
  return weightedAverage(resources, leastRequestedScore, false, Math.trunc);
}

export function mostResourceScorer(resources: readonly ResourceSpec[]): Scorer {
  return weightedAverage(resources, mostRequestedScore, false, Math.trunc);
}

/** helper.BuildBrokenLinearFunction: linear between the shape's points, flat outside them. */
export function brokenLinearFunction(shape: readonly UtilizationShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      if (p <= shape[i]!.utilization) {
        if (i === 0) return shape[0]!.score;
        const a = shape[i - 1]!;
        const b = shape[i]!;
        return a.score + Math.trunc(((b.score - a.score) * (p - a.utilization)) / (b.utilization - a.utilization));
      }
    }
    return shape[shape.length - 1]!.score;
  };
}

/** RequestedToCapacityRatio: the shape at each resource's utilization, averaged over resources scoring above 0, rounded. */
export function requestedToCapacityRatioScorer(resources: readonly ResourceSpec[], shape: readonly UtilizationShapePoint[]): Scorer {
  const scaled = shape.map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) }));
  const raw = brokenLinearFunction(scaled);
  const perResource = (requested: number, capacity: number) =>
    capacity === 0 || requested > capacity ? raw(MAX_UTILIZATION) : raw(Math.trunc((requested * MAX_UTILIZATION) / capacity));
  return weightedAverage(resources, perResource, true, Math.round);
}

/** resourceAllocationScorer: the requested and allocatable vectors of a node for the configured resources. */
export class ResourceAllocationScorer {
  constructor(
    readonly strategy: string,
    private readonly scorer: Scorer,
    readonly resources: readonly ResourceSpec[],
    /** Count real requests (BalancedAllocation) rather than the non-zero ones (Fit's strategies). */
    private readonly useRequested: boolean,
  ) {}

  /** calculatePodResourceRequestList: the pod's request of each configured resource. */
  podRequests(pod: PodInfo): number[] {
    const r = pod.resource();
    return this.resources.map(({ name }) => {
      switch (name) {
        case "cpu":
          return this.useRequested ? r.requests.milliCPU : r.nonZeroCPU;
        case "memory":
          return this.useRequested ? r.requests.memory : r.nonZeroMemory;
        case "ephemeral-storage":
          return r.requests.ephemeralStorage;
        default:
          return r.requests.getScalar(name);
      }
    });
  }

  /**
   * calculateResourceAllocatableRequest for every resource: the node's allocatable, and its requests
   * (non-zero ones unless useRequested) plus the pod's; both 0 to leave a resource out.
   */
  private fill(nodeInfo: NodeInfo, podRequests: readonly number[], requested: number[], allocatable: number[]): void {
    const used = this.useRequested ? nodeInfo.requested : nodeInfo.nonZeroRequested;
    const alloc = nodeInfo.allocatable;
    for (let i = 0; i < this.resources.length; i++) {
      const name = this.resources[i]!.name;
      const podRequest = podRequests[i]!;
      let a = 0;
      let r = 0;
      if (name === "cpu") {
        a = alloc.milliCPU;
        r = used.milliCPU + podRequest;
      } else if (name === "memory") {
        a = alloc.memory;
        r = used.memory + podRequest;
      } else if (name === "ephemeral-storage") {
        a = alloc.ephemeralStorage;
        r = nodeInfo.requested.ephemeralStorage + podRequest;
      } else if (!(podRequest === 0 && isScalarResourceName(name))) {
        // An extended resource the pod does not request is left out of the score.
        a = alloc.scalar?.get(name) ?? 0;
        r = nodeInfo.requested.getScalar(name) + podRequest;
      }
      allocatable[i] = a;
      requested[i] = a === 0 ? 0 : r;
    }
  }

  /** Scoring is synchronous and one node at a time: the vectors are reused across calls. */
  private readonly requestedBuf: number[] = [];
  private readonly allocatableBuf: number[] = [];

  score(nodeInfo: NodeInfo, podRequests: readonly number[]): number {
    this.fill(nodeInfo, podRequests, this.requestedBuf, this.allocatableBuf);
    return this.scorer(this.requestedBuf, this.allocatableBuf);
  }
}
