// A pod's identity as the agent uses it everywhere: name, namespace (defaulted), uid, full name.
import type { Pod } from "kubernetes-types/core/v1";

export interface PodRef {
  name: string;
  namespace: string;
  uid: string;
}

export function podRef(pod: Pod): PodRef {
  return { name: pod.metadata?.name ?? "", namespace: pod.metadata?.namespace ?? "default", uid: pod.metadata?.uid ?? "" };
}

/** namespace/name, the key static pods are serialized on. */
export function fullName(pod: Pod): string {
  const r = podRef(pod);
  return `${r.namespace}/${r.name}`;
}
