// The cluster a snapshot run binds into: memory. Binding a pod is the cluster reporting it bound (it
// confirms the assumed pod); evicting a preemption victim is its deletion. Both reach the scheduler
// as the informer events of a real cluster would.
import type { Pod } from "kubernetes-types/core/v1";
import type { ClusterClient } from "./framework/interface";
import type { PodInfo } from "./model/pod-info";
import type { Scheduler } from "./scheduler";

export function boundCopy(pod: Pod, nodeName: string): Pod {
  const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
  return {
    ...pod,
    spec: { ...pod.spec!, nodeName },
    status: { ...pod.status, nominatedNodeName: undefined, conditions: [...conditions, { type: "PodScheduled", status: "True" }] },
  };
}

export class InMemoryCluster implements ClusterClient {
  readonly bound: Array<{ pod: Pod; node: string }> = [];
  readonly evicted: Array<{ pod: Pod; node: string }> = [];

  constructor(private readonly scheduler: Scheduler) {}

  async bind(pod: Pod, nodeName: string): Promise<void> {
    const bound = boundCopy(pod, nodeName);
    this.bound.push({ pod: bound, node: nodeName });
    this.scheduler.onPodUpdate(pod, bound);
  }

  async deletePod(victim: PodInfo, nodeName: string): Promise<void> {
    this.evicted.push({ pod: victim.pod, node: nodeName });
    this.scheduler.onPodDelete(victim.pod);
  }
}
