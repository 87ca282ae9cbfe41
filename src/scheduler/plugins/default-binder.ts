// DefaultBinder (plugins/defaultbinder): binds the pod to the node through the cluster client — in
// memory for a snapshot, or by pushing the pod to the chosen agent.
import type { BindPlugin, Handle } from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { asStatus, type MaybeStatus } from "../framework/status";
import type { PodInfo } from "../model/pod-info";
import { Names } from "./names";

export class DefaultBinder implements BindPlugin {
  readonly name = Names.DefaultBinder;

  constructor(private readonly handle: Handle) {}

  async bind(_state: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    try {
      await this.handle.client.bind(pod.pod, nodeName);
      return undefined;
    } catch (e) {
      return asStatus(e);
    }
  }
}
