// PodTopologySpread (plugins/podtopologyspread/plugin.go): spreads matching pods over topology
// domains. DoNotSchedule constraints filter, ScheduleAnyway constraints score; a pod without
// constraints gets the profile's defaults (System: hostname and zone, with the selector of the
// Services and controllers that manage it), or none.
import type { Node, Pod, TopologySpreadConstraint } from "kubernetes-types/core/v1";
import { Action } from "../../framework/events";
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  FilterPlugin,
  Handle,
  NodeScore,
  PreFilterExtensions,
  PreFilterPlugin,
  PreFilterReturn,
  PreScorePlugin,
  ScorePlugin,
} from "../../framework/interface";
import type { CycleState } from "../../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../../framework/status";
import type { NodeInfo } from "../../model/node-info";
import { PodInfo } from "../../model/pod-info";
import { Names } from "../names";
import {
  filterConstraints,
  nodeHasTopologyKeys,
  podLabelsMatchConstraints,
  SYSTEM_DEFAULT_CONSTRAINTS,
  type Constraint,
  type PodTopologySpreadArgs,
} from "./common";
import { DomainCountCache } from "./domain-counts";
import { calPreFilterState, filterNode, type PreFilterState } from "./filtering";
import { calPreScoreState, normalize, scoreNode, type PreScoreState } from "./scoring";

const PRE_FILTER_KEY = `PreFilter${Names.PodTopologySpread}`;
const PRE_SCORE_KEY = `PreScore${Names.PodTopologySpread}`;

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions {
  readonly name = Names.PodTopologySpread;
  private readonly defaultConstraints: readonly TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;
  private readonly domainCounts = new DomainCountCache();

  constructor(
    private readonly handle: Handle,
    args: PodTopologySpreadArgs = {},
  ) {
    const type = args.defaultingType ?? "System";
    if (type === "System" && (args.defaultConstraints ?? []).length > 0)
      throw new Error('defaultConstraints: Invalid value: when .defaultingType is "System", .defaultConstraints must be empty');
    this.systemDefaulted = type === "System";
    this.defaultConstraints = this.systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : (args.defaultConstraints ?? []);
  }

  /** getConstraints: the pod's own constraints of this kind, or the defaults with the pod's default selector. */
  private constraints(pod: PodInfo, action: "DoNotSchedule" | "ScheduleAnyway"): Constraint[] {
    const own = pod.pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return filterConstraints(own, pod.labels, action);
    const defaults = filterConstraints(this.defaultConstraints, pod.labels, action);
    if (defaults.length === 0) return [];
    const selector = this.handle.snapshot().workloads().defaultSelector(pod.pod);
    if (selector.isEmpty()) return [];
    return defaults.map((c) => ({ ...c, selector }));
  }

  preFilter(state: CycleState, pod: PodInfo): PreFilterReturn {
    const s = calPreFilterState(pod, this.constraints(pod, "DoNotSchedule"), this.handle.snapshot(), this.domainCounts);
    if (s.constraints.length === 0) return new Status(Code.Skip);
    state.write(PRE_FILTER_KEY, s);
    return undefined;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY)?.updateWithPod(podToAdd, podToSchedule, nodeInfo, 1);
    return undefined;
  }

  removePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY)?.updateWithPod(podToRemove, podToSchedule, nodeInfo, -1);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_KEY);
    if (!s) return new Status(Code.Error, [`reading "${PRE_FILTER_KEY}" from cycleState: not found`]);
    if (s.constraints.length === 0) return undefined;
    return filterNode(s, pod, nodeInfo);
  }

  preScore(state: CycleState, pod: PodInfo, filteredNodes: readonly NodeInfo[]): MaybeStatus {
    const all = this.handle.snapshot().list();
    if (all.length === 0) return new Status(Code.Skip);
    const constraints = this.constraints(pod, "ScheduleAnyway");
    if (constraints.length === 0) return new Status(Code.Skip);
    // Only non-default constraints require every topology key: nodes without a zone label still get hostname spreading.
    const requireAll = (pod.pod.spec?.topologySpreadConstraints ?? []).length > 0 || !this.systemDefaulted;
    state.write(PRE_SCORE_KEY, calPreScoreState(pod, constraints, filteredNodes, all, requireAll));
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number | Status {
    const s = state.read<PreScoreState>(PRE_SCORE_KEY);
    if (!s) return new Status(Code.Error, [`reading "${PRE_SCORE_KEY}" from cycleState: not found`]);
    return scoreNode(s, pod, nodeInfo);
  }

  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): MaybeStatus {
    const s = state.read<PreScoreState>(PRE_SCORE_KEY);
    if (s) normalize(s, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Pod", actionType: Action.Add | Action.UpdatePodLabel | Action.Delete },
        hint: (pod, o, n) => this.afterPodChange(pod, o as Pod | undefined, n as Pod | undefined),
      },
      {
        event: { resource: "Node", actionType: Action.Add | Action.Delete | Action.UpdateNodeLabel | Action.UpdateNodeTaint },
        hint: (pod, o, n) => this.afterNodeChange(pod, o as Node | undefined, n as Node | undefined),
      },
    ];
  }

  private allConstraints(pod: Pod): Constraint[] {
    const pi = new PodInfo(pod);
    return [...this.constraints(pi, "DoNotSchedule"), ...this.constraints(pi, "ScheduleAnyway")];
  }

  /** isSchedulableAfterPodChange: the pod itself, or a pod in its namespace whose labels (now or before) match a constraint. */
  private afterPodChange(pod: Pod, oldPod: Pod | undefined, newPod: Pod | undefined): "Queue" | "QueueSkip" {
    const uid = pod.metadata?.uid;
    if (newPod?.metadata?.uid === uid || oldPod?.metadata?.uid === uid) return "Queue";
    const ns = pod.metadata?.namespace || "default";
    const constraints = this.allConstraints(pod);
    if (oldPod && newPod) {
      if ((oldPod.metadata?.namespace || "default") !== ns) return "QueueSkip";
      for (const c of constraints) if (c.selector.matches(oldPod.metadata?.labels) !== c.selector.matches(newPod.metadata?.labels)) return "Queue";
      return "QueueSkip";
    }
    const p = oldPod ?? newPod;
    if (!p || (p.metadata?.namespace || "default") !== ns) return "QueueSkip";
    return podLabelsMatchConstraints(constraints, p.metadata?.labels ?? {}) ? "Queue" : "QueueSkip";
  }

  /** isSchedulableAfterNodeChange: the node carries (or carried) every topology key. */
  private afterNodeChange(pod: Pod, oldNode: Node | undefined, newNode: Node | undefined): "Queue" | "QueueSkip" {
    const constraints = this.allConstraints(pod);
    const node = newNode ?? oldNode;
    if (!node) return "QueueSkip";
    return nodeHasTopologyKeys(node.metadata?.labels ?? {}, constraints) ? "Queue" : "QueueSkip";
  }
}
