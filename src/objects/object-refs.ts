// Which API objects a pod uses: the edges of the Node authorizer's graph (pod → configMap, secret,
// serviceAccount, through volumes, env, envFrom and imagePullSecrets). The sync loop resyncs the pods
// that use an object when it changes (ObjectSource.onChange), so that a waiting volume or container is
// retried at once rather than at its backoff's end.
import type { Container, Pod, Volume } from "kubernetes-types/core/v1";
import type { ObjectRef } from "./types";

/** The objects one volume's content comes from (a projected serviceAccountToken names the pod's service account). */
export function volumeObjectRefs(pod: Pod, v: Volume): ObjectRef[] {
  const namespace = pod.metadata?.namespace ?? "default";
  const refs: ObjectRef[] = [];
  if (v.configMap?.name) refs.push({ kind: "ConfigMap", namespace, name: v.configMap.name });
  if (v.secret?.secretName) refs.push({ kind: "Secret", namespace, name: v.secret.secretName });
  for (const s of v.projected?.sources ?? []) {
    if (s.configMap?.name) refs.push({ kind: "ConfigMap", namespace, name: s.configMap.name });
    if (s.secret?.name) refs.push({ kind: "Secret", namespace, name: s.secret.name });
    if (s.serviceAccountToken) refs.push({ kind: "ServiceAccount", namespace, name: pod.spec?.serviceAccountName || "default" });
  }
  return refs;
}

function containerObjectRefs(namespace: string, c: Container): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const e of c.envFrom ?? []) {
    if (e.configMapRef?.name) refs.push({ kind: "ConfigMap", namespace, name: e.configMapRef.name });
    if (e.secretRef?.name) refs.push({ kind: "Secret", namespace, name: e.secretRef.name });
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom?.configMapKeyRef?.name) refs.push({ kind: "ConfigMap", namespace, name: e.valueFrom.configMapKeyRef.name });
    if (e.valueFrom?.secretKeyRef?.name) refs.push({ kind: "Secret", namespace, name: e.valueFrom.secretKeyRef.name });
  }
  return refs;
}

/** Every object the pod uses, once each. */
export function podObjectRefs(pod: Pod): ObjectRef[] {
  const namespace = pod.metadata?.namespace ?? "default";
  const all = [
    ...(pod.spec?.volumes ?? []).flatMap((v) => volumeObjectRefs(pod, v)),
    ...[...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].flatMap((c) => containerObjectRefs(namespace, c as Container)),
    ...(pod.spec?.imagePullSecrets ?? []).filter((s) => s.name).map((s): ObjectRef => ({ kind: "Secret", namespace, name: s.name! })),
  ];
  const seen = new Set<string>();
  return all.filter((r) => {
    const k = refKey(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function refKey(r: ObjectRef): string {
  return `${r.kind}/${r.namespace}/${r.name}`;
}

export function usesObject(pod: Pod, ref: ObjectRef): boolean {
  const k = refKey(ref);
  return podObjectRefs(pod).some((r) => refKey(r) === k);
}
