// The API objects a pod names: the kubelet's podutil.VisitPodSecretNames and VisitPodConfigmapNames
// (k/k@1.24.1 pkg/api/v1/pod/util.go), which the kubelet's secret and configMap managers
// (RegisterPod: one reference per name) and the Node authorizer's graph (graph.go AddPod: an edge per
// name) walk, plus the service account a projected token is bound to. One walker for every reader:
// the object sources register what pods use, the sync loop and the volume manager find the pods and
// volumes an object change reaches, and static-pod validation positions the first reference it refuses.
import type { Container, Pod, PodSpec, Volume } from "kubernetes-types/core/v1";

export type PodReferenceKind = "ConfigMap" | "Secret" | "ServiceAccount";

/** One reference of a pod to an API object, where it is written. */
export interface PodReference {
  kind: PodReferenceKind;
  /** May be empty: the visitor sees every reference, even one without a name (validation positions it). */
  name: string;
  /** The field path of the reference, as validation messages give it: `spec.volumes[0].secret`. */
  field: string;
}

/** The service account whose tokens the pod may carry; "default" when unset, as the ServiceAccount admission sets it. */
export function podServiceAccountName(pod: Pod): string {
  return pod.spec?.serviceAccountName || pod.spec?.serviceAccount || "default";
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

// The secret references of the non-kubelet volume types, as VisitPodSecretNames lists them: the
// volume field and the field of its secret reference.
const SECRET_REF_VOLUMES = [
  ["cephfs", "secretRef"],
  ["cinder", "secretRef"],
  ["flexVolume", "secretRef"],
  ["rbd", "secretRef"],
  ["scaleIO", "secretRef"],
  ["iscsi", "secretRef"],
  ["storageos", "secretRef"],
  ["csi", "nodePublishSecretRef"],
] as const;

/**
 * The references of one volume, in the visitors' order: the configMap or secret it is made of, its
 * projected sources (a serviceAccountToken source names the pod's service account), and the secrets
 * of the volume types the kubelet only mounts through other plugins (azureFile, cephfs, csi, …).
 * `index` is the volume's place in spec.volumes, for the field paths.
 */
export function volumeReferences(pod: Pod, v: Volume, index = (pod.spec?.volumes ?? []).indexOf(v)): PodReference[] {
  const base = `spec.volumes[${index}]`;
  const refs: PodReference[] = [];
  if (v.configMap) refs.push({ kind: "ConfigMap", name: v.configMap.name ?? "", field: `${base}.configMap` });
  if (v.secret) refs.push({ kind: "Secret", name: v.secret.secretName ?? "", field: `${base}.secret` });
  (v.projected?.sources ?? []).forEach((s, j) => {
    const at = `${base}.projected.sources[${j}]`;
    if (present(s.configMap)) refs.push({ kind: "ConfigMap", name: s.configMap?.name ?? "", field: `${at}.configMap` });
    if (present(s.secret)) refs.push({ kind: "Secret", name: s.secret?.name ?? "", field: `${at}.secret` });
    if (present(s.serviceAccountToken)) refs.push({ kind: "ServiceAccount", name: podServiceAccountName(pod), field: `${at}.serviceAccountToken` });
  });
  if (v.azureFile) refs.push({ kind: "Secret", name: v.azureFile.secretName ?? "", field: `${base}.azureFile.secretName` });
  const vol = v as unknown as Record<string, Record<string, { name?: string } | undefined> | undefined>;
  for (const [k, refField] of SECRET_REF_VOLUMES) {
    const src = vol[k];
    if (src && present(src[refField])) refs.push({ kind: "Secret", name: src[refField]?.name ?? "", field: `${base}.${k}.${refField}` });
  }
  return refs;
}

function containerLists(spec: PodSpec): Array<[Container[], string]> {
  return [
    [spec.initContainers ?? [], "spec.initContainers"],
    [spec.containers ?? [], "spec.containers"],
    [(spec.ephemeralContainers ?? []) as Container[], "spec.ephemeralContainers"],
  ];
}

/**
 * Every reference of the pod, in the visitors' order: imagePullSecrets; then per container (init,
 * app, ephemeral) its envFrom and env key references; then the volumes. Filtered to one kind, this is
 * the order VisitPodSecretNames / VisitPodConfigmapNames see them. Empty names are kept.
 */
export function podReferences(pod: Pod): PodReference[] {
  const spec = pod.spec;
  if (!spec) return [];
  const refs: PodReference[] = [];
  (spec.imagePullSecrets ?? []).forEach((s, i) => refs.push({ kind: "Secret", name: s.name ?? "", field: `spec.imagePullSecrets[${i}]` }));
  for (const [list, path] of containerLists(spec)) {
    list.forEach((c, i) => {
      (c.envFrom ?? []).forEach((ef, j) => {
        const at = `${path}[${i}].envFrom[${j}]`;
        if (ef.configMapRef) refs.push({ kind: "ConfigMap", name: ef.configMapRef.name ?? "", field: `${at}.configMapRef` });
        if (ef.secretRef) refs.push({ kind: "Secret", name: ef.secretRef.name ?? "", field: `${at}.secretRef` });
      });
      (c.env ?? []).forEach((e, j) => {
        const at = `${path}[${i}].env[${j}].valueFrom`;
        if (e.valueFrom?.configMapKeyRef) refs.push({ kind: "ConfigMap", name: e.valueFrom.configMapKeyRef.name ?? "", field: `${at}.configMapKeyRef` });
        if (e.valueFrom?.secretKeyRef) refs.push({ kind: "Secret", name: e.valueFrom.secretKeyRef.name ?? "", field: `${at}.secretKeyRef` });
      });
    });
  }
  (spec.volumes ?? []).forEach((v, i) => refs.push(...volumeReferences(pod, v, i)));
  return refs;
}

function uniqueNames(pod: Pod, kind: PodReferenceKind): string[] {
  const names = new Set<string>();
  for (const r of podReferences(pod)) if (r.kind === kind && r.name) names.add(r.name);
  return [...names];
}

/** Every secret name the pod refers to (pull secrets, env, volumes of every kind that carries one), once each. */
export function podSecretNames(pod: Pod): string[] {
  return uniqueNames(pod, "Secret");
}

/** Every config map name the pod refers to (env, configMap volumes and projected sources), once each. */
export function podConfigMapNames(pod: Pod): string[] {
  return uniqueNames(pod, "ConfigMap");
}
