// NodeResourcesFit (plugins/noderesources/fit.go): Filter checks the node has room for the pod's
// requests (and a pod slot); Score ranks nodes with the configured strategy — LeastAllocated
// (default), MostAllocated or RequestedToCapacityRatio — over the configured resources.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { Action } from "../../framework/events";
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  PreFilterPlugin,
  PreFilterReturn,
  PreScorePlugin,
  ScorePlugin,
} from "../../framework/interface";
import type { CycleState } from "../../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../../framework/status";
import { NodeInfo } from "../../model/node-info";
import { PodInfo } from "../../model/pod-info";
import { isExtendedResourceName } from "../../../api";
import { formatResourceValue, podRequests, type Resource } from "../../model/resource";
import { asNodes } from "../helper";
import { Names } from "../names";
import {
  leastResourceScorer,
  mostResourceScorer,
  requestedToCapacityRatioScorer,
  ResourceAllocationScorer,
  type ResourceSpec,
  type UtilizationShapePoint,
} from "./resource-allocation";

export type ScoringStrategyType = "LeastAllocated" | "MostAllocated" | "RequestedToCapacityRatio";

/** NodeResourcesFitArgs. */
export interface NodeResourcesFitArgs {
  ignoredResources?: string[];
  ignoredResourceGroups?: string[];
  scoringStrategy?: {
    type?: ScoringStrategyType;
    resources?: ResourceSpec[];
    requestedToCapacityRatio?: { shape?: UtilizationShapePoint[] };
  };
}

export const DEFAULT_RESOURCES: ResourceSpec[] = [
  { name: "cpu", weight: 1 },
  { name: "memory", weight: 1 },
];

const PRE_FILTER_KEY = `PreFilter${Names.NodeResourcesFit}`;
const NO_NAMES: ReadonlySet<string> = new Set();
const NONE: InsufficientResource[] = [];
const PRE_SCORE_KEY = `PreScore${Names.NodeResourcesFit}`;

export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
  /** The node could not take the pod even empty: preemption would not help. */
  unresolvable: boolean;
}

/**
 * fitsRequest: every resource the pod requests that the node does not have free, and the pod slot.
 * A request larger than the whole allocatable is unresolvable.
 */
export function fitsRequest(
  request: Resource,
  nodeInfo: NodeInfo,
  ignored: ReadonlySet<string> = NO_NAMES,
  ignoredGroups: ReadonlySet<string> = NO_NAMES,
): InsufficientResource[] {
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  // The common case allocates nothing: everything fits.
  if (
    nodeInfo.pods.length + 1 <= alloc.allowedPodNumber &&
    !(request.milliCPU > 0 && request.milliCPU > alloc.milliCPU - used.milliCPU) &&
    !(request.memory > 0 && request.memory > alloc.memory - used.memory) &&
    !(request.ephemeralStorage > 0 && request.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage) &&
    !request.scalar
  ) {
    return NONE;
  }
  return insufficientResources(request, nodeInfo, ignored, ignoredGroups);
}

function insufficient(out: InsufficientResource[], name: string, want: number, allocatable: number, used: number): void {
  if (want > 0 && want > allocatable - used)
    out.push({ resourceName: name, reason: `Insufficient ${name}`, requested: want, used, capacity: allocatable, unresolvable: want > allocatable });
}

function insufficientResources(
  request: Resource,
  nodeInfo: NodeInfo,
  ignored: ReadonlySet<string>,
  ignoredGroups: ReadonlySet<string>,
): InsufficientResource[] {
  const alloc = nodeInfo.allocatable;
  const used = nodeInfo.requested;
  const out: InsufficientResource[] = [];
  if (nodeInfo.pods.length + 1 > alloc.allowedPodNumber) {
    out.push({
      resourceName: "pods",
      reason: "Too many pods",
      requested: 1,
      used: nodeInfo.pods.length,
      capacity: alloc.allowedPodNumber,
      unresolvable: false,
    });
  }
  if (request.isZero()) return out;
  insufficient(out, "cpu", request.milliCPU, alloc.milliCPU, used.milliCPU);
  insufficient(out, "memory", request.memory, alloc.memory, used.memory);
  insufficient(out, "ephemeral-storage", request.ephemeralStorage, alloc.ephemeralStorage, used.ephemeralStorage);
  for (const [name, want] of request.scalar ?? []) {
    if (want === 0) continue;
    if (isExtendedResourceName(name) && (ignored.has(name) || ignoredGroups.has(name.split("/")[0]!))) continue;
    insufficient(out, name, want, alloc.getScalar(name), used.getScalar(name));
  }
  return out;
}

function describe(r: InsufficientResource): string {
  const f = (v: number) => formatResourceValue(r.resourceName, v);
  if (r.resourceName === "pods") return `pods: ${r.used} of ${r.capacity} already on the node`;
  const free = Math.max(0, r.capacity - r.used);
  return `${r.resourceName}: requested ${f(r.requested)}, ${f(free)} free (${f(r.used)} of ${f(r.capacity)} allocatable requested)`;
}

export function buildScorer(args: NodeResourcesFitArgs): ResourceAllocationScorer {
  const strategy = args.scoringStrategy?.type ?? "LeastAllocated";
  const resources = args.scoringStrategy?.resources ?? DEFAULT_RESOURCES;
  switch (strategy) {
    case "LeastAllocated":
      return new ResourceAllocationScorer(strategy, leastResourceScorer(resources), resources, false);
    case "MostAllocated":
      return new ResourceAllocationScorer(strategy, mostResourceScorer(resources), resources, false);
    case "RequestedToCapacityRatio": {
      const shape = args.scoringStrategy?.requestedToCapacityRatio?.shape;
      if (!shape || shape.length === 0) throw new Error("scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point is required");
      return new ResourceAllocationScorer(strategy, requestedToCapacityRatioScorer(resources, shape), resources, false);
    }
    default:
      throw new Error(`scoring strategy ${strategy} is not supported`);
  }
}

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Names.NodeResourcesFit;
  readonly scorer: ResourceAllocationScorer;
  private readonly ignored: Set<string>;
  private readonly ignoredGroups: Set<string>;

  constructor(args: NodeResourcesFitArgs = {}) {
    this.scorer = buildScorer(args);
    this.ignored = new Set(args.ignoredResources ?? []);
    this.ignoredGroups = new Set(args.ignoredResourceGroups ?? []);
  }

  preFilter(state: CycleState, pod: PodInfo): PreFilterReturn {
    state.write(PRE_FILTER_KEY, pod.resource().requests);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const request = state.read<Resource>(PRE_FILTER_KEY);
    if (!request) return new Status(Code.Error, [`error reading "${PRE_FILTER_KEY}" from cycleState: not found`]);
    const insufficient = fitsRequest(request, nodeInfo, this.ignored, this.ignoredGroups);
    if (insufficient.length === 0) return undefined;
    const code = insufficient.some((r) => r.unresolvable) ? Code.UnschedulableAndUnresolvable : Code.Unschedulable;
    return new Status(
      code,
      insufficient.map((r) => r.reason),
    ).withDetail(insufficient.map(describe).join("; "));
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    state.write(PRE_SCORE_KEY, this.scorer.podRequests(pod));
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    const requests = state.read<number[]>(PRE_SCORE_KEY) ?? this.scorer.podRequests(pod);
    return this.scorer.score(nodeInfo, requests);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Pod", actionType: Action.Delete | Action.UpdatePodScaleDown },
        hint: (pod, oldObj, newObj) => this.afterPodEvent(pod, oldObj as Pod | undefined, newObj as Pod | undefined),
      },
      {
        event: { resource: "Node", actionType: Action.Add | Action.UpdateNodeAllocatable },
        hint: (pod, oldObj, newObj) => this.afterNodeChange(pod, oldObj, newObj),
      },
    ];
  }

  /** isSchedulableAfterPodEvent: a bound pod deleted, or any pod scaled down in what this pod requests. */
  private afterPodEvent(pod: Pod, oldPod: Pod | undefined, newPod: Pod | undefined): "Queue" | "QueueSkip" {
    if (!newPod) return oldPod?.spec?.nodeName || oldPod?.status?.nominatedNodeName ? "Queue" : "QueueSkip";
    if (newPod.metadata?.uid === pod.metadata?.uid) return "Queue";
    if (!newPod.spec?.nodeName || !oldPod) return "QueueSkip";
    const before = podRequests(oldPod);
    const after = podRequests(newPod);
    for (const [name, want] of podRequests(pod)) if (want > 0 && (after.get(name) ?? 0) < (before.get(name) ?? 0)) return "Queue";
    return "QueueSkip";
  }

  /** isSchedulableAfterNodeChange: the pod would fit the node empty, and it is new or grew in what the pod requests. */
  private afterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): "Queue" | "QueueSkip" {
    const { oldNode, newNode } = asNodes(oldObj, newObj);
    const request = new PodInfo(pod).resource().requests;
    if (fitsRequest(request, new NodeInfo(newNode), this.ignored, this.ignoredGroups).length > 0) return "QueueSkip";
    if (!oldNode) return "Queue";
    return grew(request, oldNode, newNode) ? "Queue" : "QueueSkip";
  }
}

/** haveAnyRequestedResourcesIncreased. */
function grew(request: Resource, oldNode: Node, newNode: Node): boolean {
  const a = new NodeInfo(oldNode).allocatable;
  const b = new NodeInfo(newNode).allocatable;
  if (b.allowedPodNumber > a.allowedPodNumber) return true;
  if (request.milliCPU > 0 && b.milliCPU > a.milliCPU) return true;
  if (request.memory > 0 && b.memory > a.memory) return true;
  if (request.ephemeralStorage > 0 && b.ephemeralStorage > a.ephemeralStorage) return true;
  for (const [name, want] of request.scalar ?? []) if (want > 0 && b.getScalar(name) > a.getScalar(name)) return true;
  return false;
}
