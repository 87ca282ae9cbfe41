// TaintToleration (plugins/tainttoleration): Filter keeps a pod off nodes with a NoSchedule or
// NoExecute taint it does not tolerate; Score counts the PreferNoSchedule taints it does not
// tolerate, and NormalizeScore reverses the counts (fewest intolerable taints scores 100).
import type { Node, Pod, Taint, Toleration } from "kubernetes-types/core/v1";
import { Action } from "../framework/events";
import {
  type ClusterEventWithHint,
  type EnqueueExtensions,
  type FilterPlugin,
  MAX_NODE_SCORE,
  type NodeScore,
  type PreScorePlugin,
  type ScorePlugin,
} from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../framework/status";
import { findUntoleratedTaint, isDoNotScheduleTaint, taintString, tolerationsTolerateTaint } from "../model/labels";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import { asNodes, defaultNormalizeScore } from "./helper";
import { Names } from "./names";

export const ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)";
const PRE_SCORE_KEY = `PreScore${Names.TaintToleration}`;

/** The tolerations that can tolerate a PreferNoSchedule taint (effect empty or PreferNoSchedule). */
function preferNoScheduleTolerations(tolerations: readonly Toleration[] | undefined): Toleration[] {
  return (tolerations ?? []).filter((t) => !t.effect || t.effect === "PreferNoSchedule");
}

/** countIntolerableTaintsPreferNoSchedule. */
export function countIntolerablePreferNoSchedule(taints: readonly Taint[], tolerations: readonly Toleration[]): number {
  let n = 0;
  for (const t of taints) if (t.effect === "PreferNoSchedule" && !tolerationsTolerateTaint(tolerations, t)) n++;
  return n;
}

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = Names.TaintToleration;

  filter(_state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const taint = findUntoleratedTaint(nodeInfo.taints, pod.pod.spec?.tolerations, isDoNotScheduleTaint);
    if (!taint) return undefined;
    return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_NOT_MATCH]).withDetail(`untolerated taint ${taintString(taint)}`);
  }

  preScore(state: CycleState, pod: PodInfo): MaybeStatus {
    state.write(PRE_SCORE_KEY, preferNoScheduleTolerations(pod.pod.spec?.tolerations));
    return undefined;
  }

  score(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): number {
    const tolerations = state.read<Toleration[]>(PRE_SCORE_KEY) ?? preferNoScheduleTolerations(pod.pod.spec?.tolerations);
    return countIntolerablePreferNoSchedule(nodeInfo.taints, tolerations);
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): MaybeStatus {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return undefined;
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Node", actionType: Action.Add | Action.UpdateNodeTaint },
        hint: (pod, oldObj, newObj) => {
          const { oldNode, newNode } = asNodes(oldObj, newObj);
          const fits = (n: Node | undefined) => !!n && !findUntoleratedTaint(n.spec?.taints, pod.spec?.tolerations, isDoNotScheduleTaint);
          // Queue only when the node did not admit the pod before and does now.
          return fits(newNode) && !fits(oldNode) ? "Queue" : "QueueSkip";
        },
      },
      {
        event: { resource: "UnschedulablePod", actionType: Action.UpdatePodToleration },
        hint: (pod, _old, newObj) => ((newObj as Pod | undefined)?.metadata?.uid === pod.metadata?.uid ? "Queue" : "QueueSkip"),
      },
    ];
  }
}
