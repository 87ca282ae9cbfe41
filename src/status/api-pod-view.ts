// What the status manager (and the cluster's mirror pods) read of the API: the pods bound to this node
// as the API source's informer last saw them, in their JSON wire form (a KubeInformer<Pod> is one).
import type { Pod } from "kubernetes-types/core/v1";

export type ApiPodEvent = "add" | "update" | "delete";

export interface ApiPodView {
  /** The pod by name and namespace, as last listed or watched. */
  get(name: string, namespace?: string): Pod | undefined;
  /** Every pod bound to this node. */
  list(): readonly Pod[];
  /** Called after each change is in the view. */
  onChange(cb: (event: ApiPodEvent, pod: Pod) => void): void;
}
