// InterPodAffinity (plugins/interpodaffinity/plugin.go): required pod (anti-)affinity filters,
// preferred terms (and existing pods' terms) score.
import type { Pod } from "kubernetes-types/core/v1";
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
import { PodInfo, termMatches } from "../../model/pod-info";
import { intArg } from "../helper";
import { Names } from "../names";
import type { TopologyCounts } from "./counts";
import { calPreFilterState, filterNode, type PreFilterState } from "./filtering";
import { calTopologyScore, normalize } from "./scoring";

export interface InterPodAffinityArgs {
  hardPodAffinityWeight?: number;
  ignorePreferredTermsOfExistingPods?: boolean;
}

const PRE_FILTER_KEY = `PreFilter${Names.InterPodAffinity}`;
const PRE_SCORE_KEY = `PreScore${Names.InterPodAffinity}`;

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions, PreFilterExtensions {
  readonly name = Names.InterPodAffinity;
  private readonly hardPodAffinityWeight: number;
  private readonly ignorePreferredTermsOfExistingPods: boolean;

  constructor(
    private readonly handle: Handle,
    args: InterPodAffinityArgs = {},
  ) {
    this.hardPodAffinityWeight = intArg("hardPodAffinityWeight", args.hardPodAffinityWeight, 1, 0, 100);
    this.ignorePreferredTermsOfExistingPods = args.ignorePreferredTermsOfExistingPods ?? false;
  }

  preFilter(state: CycleState, pod: PodInfo): PreFilterReturn {
    if (pod.parseError) return new Status(Code.UnschedulableAndUnresolvable, [`parsing pod: ${pod.parseError}`]);
    const s = calPreFilterState(pod, this.handle.snapshot());
    if (s.existingAntiAffinityCounts.size === 0 && pod.requiredAffinityTerms.length === 0 && pod.requiredAntiAffinityTerms.length === 0)
      return new Status(Code.Skip);
    state.write(PRE_FILTER_KEY, s);
    return undefined;
  }

  preFilterExtensions(): PreFilterExtensions {
    return this;
  }

  addPod(state: CycleState, _pod: PodInfo, podToAdd: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY)?.updateWithPod(podToAdd, nodeInfo.labels, 1);
    return undefined;
  }

  removePod(state: CycleState, _pod: PodInfo, podToRemove: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    state.read<PreFilterState>(PRE_FILTER_KEY)?.updateWithPod(podToRemove, nodeInfo.labels, -1);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const s = state.read<PreFilterState>(PRE_FILTER_KEY);
    if (!s) return new Status(Code.Error, [`reading "${PRE_FILTER_KEY}" from cycleState: not found`]);
    return filterNode(s, nodeInfo, this.handle.snapshot().namespaceLabels(pod.namespace));
  }

  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): MaybeStatus {
    if (nodes.length === 0) return undefined;
    const m = calTopologyScore(pod, this.handle.snapshot(), this.hardPodAffinityWeight, this.ignorePreferredTermsOfExistingPods);
    if (!m) return new Status(Code.Skip);
    state.write(PRE_SCORE_KEY, m);
    return undefined;
  }

  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number | Status {
    const m = state.read<TopologyCounts>(PRE_SCORE_KEY);
    if (!m) return new Status(Code.Error, [`reading "${PRE_SCORE_KEY}" from cycleState: not found`]);
    return m.sumFor(nodeInfo.labels);
  }

  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): MaybeStatus {
    if (state.read<TopologyCounts>(PRE_SCORE_KEY)) normalize(scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Pod", actionType: Action.Add | Action.UpdatePodLabel | Action.Delete },
        hint: (pod, o, n) => this.afterPodChange(pod, o as Pod | undefined, n as Pod | undefined),
      },
      { event: { resource: "Node", actionType: Action.Add | Action.UpdateNodeLabel } },
    ];
  }

  /**
   * isSchedulableAfterPodChange: a pod added or relabelled may satisfy the pod's affinity; a pod
   * deleted may lift its anti-affinity (or an existing pod's anti-affinity against it).
   */
  private afterPodChange(pod: Pod, oldPod: Pod | undefined, newPod: Pod | undefined): "Queue" | "QueueSkip" {
    const me = new PodInfo(pod);
    const lister = this.handle.snapshot();
    if (newPod) {
      const np = new PodInfo(newPod);
      const ns = lister.namespaceLabels(np.namespace);
      if (me.requiredAffinityTerms.length === 0) return "QueueSkip";
      return me.requiredAffinityTerms.some((t) => termMatches(t, np, ns)) ? "Queue" : "QueueSkip";
    }
    if (!oldPod) return "QueueSkip";
    const op = new PodInfo(oldPod);
    if (op.requiredAntiAffinityTerms.some((t) => termMatches(t, me, lister.namespaceLabels(me.namespace)))) return "Queue";
    return me.requiredAntiAffinityTerms.some((t) => termMatches(t, op, lister.namespaceLabels(op.namespace))) ? "Queue" : "QueueSkip";
  }
}
