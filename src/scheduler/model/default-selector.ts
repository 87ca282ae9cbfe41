// helper.DefaultSelector (plugins/helper/spread.go): the selector of the Services, ReplicationController,
// ReplicaSet or StatefulSet that manage a pod, used by PodTopologySpread's default constraints. The
// objects come from the cluster input when it carries them (kubectl get services,replicasets,…).
import type { ReplicaSet, StatefulSet } from "kubernetes-types/apps/v1";
import type { Pod, ReplicationController, Service } from "kubernetes-types/core/v1";
import { labelSelectorAsSelector, selectorFromSet, equalityRequirements, Selector, type Labels } from "./labels";

export class Workloads {
  services: Service[] = [];
  replicationControllers: ReplicationController[] = [];
  replicaSets: ReplicaSet[] = [];
  statefulSets: StatefulSet[] = [];

  isEmpty(): boolean {
    return this.services.length + this.replicationControllers.length + this.replicaSets.length + this.statefulSets.length === 0;
  }

  /** The merged selectors of what manages the pod; Everything (empty) when nothing does. */
  defaultSelector(pod: Pod): Selector {
    if (this.isEmpty()) return Selector.EVERYTHING;
    const ns = pod.metadata?.namespace || "default";
    const podLabels = pod.metadata?.labels ?? {};
    let set: Record<string, string> = {};
    for (const s of this.services) {
      const sel = s.spec?.selector;
      if ((s.metadata?.namespace || "default") !== ns || !sel || Object.keys(sel).length === 0) continue;
      if (selectorFromSet(sel).matches(podLabels)) set = { ...set, ...sel };
    }
    let selector = selectorFromSet(set);
    const owner = (pod.metadata?.ownerReferences ?? []).find((o) => o.controller);
    if (!owner) return selector;
    const sameNs = (o: { metadata?: { namespace?: string; name?: string } }) => (o.metadata?.namespace || "default") === ns && o.metadata?.name === owner.name;
    if (owner.kind === "ReplicationController" && owner.apiVersion === "v1") {
      const rc = this.replicationControllers.find(sameNs);
      if (rc?.spec?.selector) selector = selectorFromSet({ ...set, ...rc.spec.selector });
    } else if ((owner.kind === "ReplicaSet" || owner.kind === "StatefulSet") && owner.apiVersion === "apps/v1") {
      const obj = owner.kind === "ReplicaSet" ? this.replicaSets.find(sameNs) : this.statefulSets.find(sameNs);
      if (obj?.spec?.selector) {
        try {
          const other = labelSelectorAsSelector(obj.spec.selector);
          selector = other.and(equalityRequirements(set as Labels));
        } catch {
          // An invalid selector adds nothing, as upstream ignores the error.
        }
      }
    }
    return selector;
  }
}
