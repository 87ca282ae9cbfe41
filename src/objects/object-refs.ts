// Which API objects a pod uses, as ObjectRefs (kind, namespace, name): the references src/api's walker
// finds (pod-references.ts), with the pod's namespace and without the unnamed ones. The sync loop
// resyncs the pods that use an object when it changes (ObjectSource.onChange), so that a waiting
// volume or container is retried at once rather than at its backoff's end.
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { podReferences, volumeReferences, type PodReference } from "../api";
import type { ObjectRef } from "./types";

function toObjectRefs(pod: Pod, refs: readonly PodReference[]): ObjectRef[] {
  const namespace = pod.metadata?.namespace ?? "default";
  const seen = new Set<string>();
  const out: ObjectRef[] = [];
  for (const r of refs) {
    if (!r.name) continue;
    const ref: ObjectRef = { kind: r.kind, namespace, name: r.name };
    const k = refKey(ref);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(ref);
  }
  return out;
}

/** The objects one volume's content comes from (a projected serviceAccountToken names the pod's service account). */
export function volumeObjectRefs(pod: Pod, v: Volume): ObjectRef[] {
  return toObjectRefs(pod, volumeReferences(pod, v));
}

/** Every object the pod uses, once each, in the walker's order. */
export function podObjectRefs(pod: Pod): ObjectRef[] {
  return toObjectRefs(pod, podReferences(pod));
}

export function refKey(r: ObjectRef): string {
  return `${r.kind}/${r.namespace}/${r.name}`;
}

export function usesObject(pod: Pod, ref: ObjectRef): boolean {
  const k = refKey(ref);
  return podObjectRefs(pod).some((r) => refKey(r) === k);
}
