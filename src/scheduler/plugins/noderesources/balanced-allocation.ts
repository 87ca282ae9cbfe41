// NodeResourcesBalancedAllocation (plugins/noderesources/balanced_allocation.go): prefers nodes where
// the pod leaves the resources equally used: score = (1 − std of the requested/allocatable fractions)
// × 100; for two resources std is |f1 − f2| / 2. Best-effort pods are not scored (k/k #129138).
import { MAX_NODE_SCORE, type PreScorePlugin, type ScorePlugin } from "../../framework/interface";
import type { CycleState } from "../../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../../framework/status";
import type { NodeInfo } from "../../model/node-info";
import type { PodInfo } from "../../model/pod-info";
import { Names } from "../names";
import { DEFAULT_RESOURCES } from "./fit";
import { ResourceAllocationScorer, type ResourceSpec } from "./resource-allocation";

export interface BalancedAllocationArgs {
  resources?: ResourceSpec[];
}

const PRE_SCORE_KEY = `PreScore${Names.NodeResourcesBalancedAllocation}`;

/** balancedResourceScorer. */
export function balancedResourceScorer(requested: readonly number[], allocatable: readonly number[]): number {
  // Two passes instead of a list of fractions: this runs for every node of every cycle.
  let count = 0;
  let total = 0;
  let first = 0;
  let second = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const f = Math.min(requested[i]! / allocatable[i]!, 1);
    if (count === 0) first = f;
    else if (count === 1) second = f;
    total += f;
    count++;
  }
  let std = 0;
  if (count === 2) {
    std = Math.abs((first - second) / 2);
  } else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const f = Math.min(requested[i]! / allocatable[i]!, 1);
      sum += (f - mean) * (f - mean);
    }
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

export class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = Names.NodeResourcesBalancedAllocation;
  readonly scorer: ResourceAllocationScorer;

  constructor(args: BalancedAllocationArgs = {}) {
    this.scorer = new ResourceAllocationScorer(this.name, balancedResourceScorer, args.resources ?? DEFAULT_RESOURCES, true);
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    const requests = this.scorer.podRequests(pod);
    if (requests.every((r) => r === 0)) return new Status(Code.Skip);
    state.write(PRE_SCORE_KEY, requests);
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    let requests = state.read<number[]>(PRE_SCORE_KEY);
    if (!requests) {
      requests = this.scorer.podRequests(pod);
      if (requests.every((r) => r === 0)) return 0;
    }
    return this.scorer.score(nodeInfo, requests);
  }
}
