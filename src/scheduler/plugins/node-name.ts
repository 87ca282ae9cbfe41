// NodeName (plugins/nodename): a pod that names its node (spec.nodeName) fits only that node.
import { Action } from "../framework/events";
import type { ClusterEventWithHint, EnqueueExtensions, FilterPlugin } from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../framework/status";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import { asNodes } from "./helper";
import { Names } from "./names";

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = Names.NodeName;

  filter(_state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const want = pod.pod.spec?.nodeName;
    if (!want || want === nodeInfo.name) return undefined;
    return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_NODE_NAME]).withDetail(`the pod asks for node ${JSON.stringify(want)}`);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Node", actionType: Action.Add },
        hint: (pod, oldObj, newObj) => {
          const { newNode } = asNodes(oldObj, newObj);
          const want = pod.spec?.nodeName;
          return !want || want === newNode.metadata?.name ? "Queue" : "QueueSkip";
        },
      },
    ];
  }
}
