// NodeAffinity (plugins/nodeaffinity): Filter requires spec.nodeSelector and the required node
// affinity (and the profile's addedAffinity) to match the node; PreFilter narrows the nodes when the
// terms name them through metadata.name; Score sums the weights of the preferred terms a node
// matches, normalised so the best node scores 100.
import type { NodeAffinity as NodeAffinitySpec, NodeSelector } from "kubernetes-types/core/v1";
import { Action } from "../framework/events";
import {
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  MAX_NODE_SCORE,
  type NodeScore,
  type PreFilterPlugin,
  type PreFilterReturn,
  type PreScorePlugin,
  type ScorePlugin,
} from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../framework/status";
import { NodeSelectorMatcher, PreferredSchedulingTerms, RequiredNodeAffinity } from "../model/labels";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import { asNodes, defaultNormalizeScore } from "./helper";
import { Names } from "./names";

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = "pod affinity terms conflict";

const PRE_FILTER_KEY = `PreFilter${Names.NodeAffinity}`;
const PRE_SCORE_KEY = `PreScore${Names.NodeAffinity}`;

/** NodeAffinityArgs. */
export interface NodeAffinityArgs {
  addedAffinity?: NodeAffinitySpec;
}

export class NodeAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Names.NodeAffinity;
  private readonly addedNodeSelector: NodeSelectorMatcher | undefined;
  private readonly addedPrefSchedTerms: PreferredSchedulingTerms | undefined;

  constructor(args: NodeAffinityArgs = {}) {
    const added = args.addedAffinity;
    const required = added?.requiredDuringSchedulingIgnoredDuringExecution;
    this.addedNodeSelector = required ? new NodeSelectorMatcher(required) : undefined;
    const preferred = added?.preferredDuringSchedulingIgnoredDuringExecution;
    this.addedPrefSchedTerms = preferred && preferred.length > 0 ? new PreferredSchedulingTerms(preferred) : undefined;
  }

  preFilter(state: CycleState, pod: PodInfo): PreFilterReturn {
    const affinity = pod.pod.spec?.affinity?.nodeAffinity;
    const noNodeAffinity = !affinity?.requiredDuringSchedulingIgnoredDuringExecution;
    if (noNodeAffinity && !this.addedNodeSelector && Object.keys(pod.pod.spec?.nodeSelector ?? {}).length === 0) return new Status(Code.Skip);
    state.write(PRE_FILTER_KEY, new RequiredNodeAffinity(pod.pod));
    if (noNodeAffinity) return undefined;
    // Terms naming nodes through matchFields metadata.name In: only those nodes are worth filtering.
    let nodeNames: Set<string> | undefined;
    for (const term of (affinity!.requiredDuringSchedulingIgnoredDuringExecution as NodeSelector).nodeSelectorTerms ?? []) {
      let termNames: Set<string> | undefined;
      for (const r of term.matchFields ?? []) {
        if (r.key !== "metadata.name" || r.operator !== "In") continue;
        const s = new Set(r.values ?? []);
        termNames = termNames ? new Set([...termNames].filter((n) => s.has(n))) : s;
      }
      // A term without a node name allows every node: the terms are ORed.
      if (!termNames) return undefined;
      nodeNames = new Set([...(nodeNames ?? []), ...termNames]);
    }
    if (nodeNames && nodeNames.size === 0) return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_CONFLICT]);
    if (nodeNames && nodeNames.size > 0) return { nodeNames };
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const node = nodeInfo.node!;
    if (this.addedNodeSelector && !this.addedNodeSelector.matches(node)) {
      return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_ENFORCED]);
    }
    const required = state.read<RequiredNodeAffinity>(PRE_FILTER_KEY) ?? new RequiredNodeAffinity(pod.pod);
    if (!required.matches(node)) {
      const selector = pod.pod.spec?.nodeSelector ?? {};
      const missing = Object.entries(selector)
        .filter(([k, v]) => nodeInfo.labels[k] !== v)
        .map(([k, v]) => `${k}=${v}`);
      const detail = missing.length > 0 ? `nodeSelector wants ${missing.join(", ")}` : "no required node affinity term matches the node's labels";
      return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_POD]).withDetail(detail);
    }
    return undefined;
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    const preferred = pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
    if (preferred.length === 0 && !this.addedPrefSchedTerms) return new Status(Code.Skip);
    state.write(PRE_SCORE_KEY, new PreferredSchedulingTerms(preferred));
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    const node = nodeInfo.node!;
    let count = this.addedPrefSchedTerms ? this.addedPrefSchedTerms.score(node) : 0;
    const terms =
      state.read<PreferredSchedulingTerms>(PRE_SCORE_KEY) ??
      new PreferredSchedulingTerms(pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []);
    count += terms.score(node);
    return count;
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): MaybeStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Node", actionType: Action.Add | Action.UpdateNodeLabel },
        hint: (pod, oldObj, newObj) => {
          const { oldNode, newNode } = asNodes(oldObj, newObj);
          if (this.addedNodeSelector && !this.addedNodeSelector.matches(newNode)) return "QueueSkip";
          const required = new RequiredNodeAffinity(pod);
          if (!required.matches(newNode)) return "QueueSkip";
          return oldNode && required.matches(oldNode) ? "QueueSkip" : "Queue";
        },
      },
    ];
  }
}
