// SchedulingGates (plugins/schedulinggates): a pod with spec.schedulingGates stays out of activeQ,
// not even attempted, until every gate is removed.
import type { Pod } from "kubernetes-types/core/v1";
import { Action } from "../framework/events";
import type { ClusterEventWithHint, EnqueueExtensions, PreEnqueuePlugin } from "../framework/interface";
import { Code, Status, type MaybeStatus } from "../framework/status";
import { Names } from "./names";

export class SchedulingGates implements PreEnqueuePlugin, EnqueueExtensions {
  readonly name = Names.SchedulingGates;

  preEnqueue(pod: Pod): MaybeStatus {
    const gates = pod.spec?.schedulingGates ?? [];
    if (gates.length === 0) return undefined;
    return new Status(Code.UnschedulableAndUnresolvable, [`waiting for scheduling gates: [${gates.map((g) => g.name).join(" ")}]`]);
  }

  eventsToRegister(): ClusterEventWithHint[] {
    return [
      {
        event: { resource: "Pod", actionType: Action.UpdatePodSchedulingGatesEliminated },
        hint: (pod, _old, newObj) => {
          const updated = newObj as Pod | undefined;
          return updated?.metadata?.uid === pod.metadata?.uid && (updated?.spec?.schedulingGates ?? []).length === 0 ? "Queue" : "QueueSkip";
        },
      },
    ];
  }
}
