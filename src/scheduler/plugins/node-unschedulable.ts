// NodeUnschedulable (plugins/nodeunschedulable): a cordoned node (spec.unschedulable) takes only pods
// that tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.
import type { Node, Taint } from "kubernetes-types/core/v1";
import { Action } from "../framework/events";
import type { ClusterEventWithHint, EnqueueExtensions, FilterPlugin } from "../framework/interface";
import { Code, Status, type MaybeStatus } from "../framework/status";
import { tolerationsTolerateTaint } from "../model/labels";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import type { CycleState } from "../framework/cycle-state";
import { asNodes } from "./helper";
import { Names } from "./names";

export const ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable";
const UNSCHEDULABLE_TAINT: Taint = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = Names.NodeUnschedulable;

  filter(_state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    if (!nodeInfo.unschedulable) return undefined;
    if (tolerationsTolerateTaint(pod.pod.spec?.tolerations, UNSCHEDULABLE_TAINT)) return undefined;
    return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_UNSCHEDULABLE]).withDetail(
      "the node is cordoned (spec.unschedulable) and the pod does not tolerate node.kubernetes.io/unschedulable:NoSchedule",
    );
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Node", actionType: Action.Add | Action.UpdateNodeTaint },
        hint: (_pod, oldObj, newObj) => {
          const { oldNode, newNode } = asNodes(oldObj, newObj);
          const was = (n: Node | undefined) => !!n?.spec?.unschedulable;
          return !was(newNode) && (oldNode === undefined || was(oldNode)) ? "Queue" : "QueueSkip";
        },
      },
    ];
  }
}
