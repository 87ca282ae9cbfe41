// NodePorts (plugins/nodeports): a pod's host ports must be free on the node; an address of 0.0.0.0
// conflicts with every address using the same protocol and port.
import type { Pod } from "kubernetes-types/core/v1";
import { Action } from "../framework/events";
import type { ClusterEventWithHint, EnqueueExtensions, FilterPlugin, PreFilterPlugin, PreFilterReturn } from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { Code, Status, type MaybeStatus } from "../framework/status";
import type { NodeInfo } from "../model/node-info";
import { PodInfo, type HostPort } from "../model/pod-info";
import { Names } from "./names";

export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";
const PRE_FILTER_KEY = `PreFilter${Names.NodePorts}`;

function conflicts(a: HostPort, b: HostPort): boolean {
  return a.protocol === b.protocol && a.port === b.port && (a.ip === b.ip || a.ip === "0.0.0.0" || b.ip === "0.0.0.0");
}

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = Names.NodePorts;

  preFilter(state: CycleState, pod: PodInfo): PreFilterReturn {
    const ports = pod.hostPorts();
    if (ports.length === 0) return new Status(Code.Skip);
    state.write(PRE_FILTER_KEY, ports);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
    const wanted = state.read<readonly HostPort[]>(PRE_FILTER_KEY) ?? pod.hostPorts();
    const taken = wanted.filter((p) => nodeInfo.usedPorts.conflicts(p));
    if (taken.length === 0) return undefined;
    return new Status(Code.Unschedulable, [ERR_REASON_PORTS]).withDetail(`in use: ${taken.map((p) => `${p.ip}:${p.port}/${p.protocol}`).join(", ")}`);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        // A bound pod's deletion frees its host ports.
        event: { resource: "Pod", actionType: Action.Delete },
        hint: (pod, oldObj) => {
          const deleted = oldObj as Pod | undefined;
          if (!deleted?.spec?.nodeName) return "QueueSkip";
          const freed = new PodInfo(deleted).hostPorts();
          const wanted = new PodInfo(pod).hostPorts();
          return wanted.some((w) => freed.some((f) => conflicts(w, f))) ? "Queue" : "QueueSkip";
        },
      },
      { event: { resource: "Node", actionType: Action.Add } },
    ];
  }
}
