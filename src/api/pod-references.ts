// The API objects a pod names, by name: the kubelet's podutil.VisitPodSecretNames and
// VisitPodConfigmapNames (k/k@1.24.1 pkg/api/v1/pod/util.go), which both the kubelet's secret and
// configMap managers (RegisterPod: one reference per name) and the Node authorizer's graph
// (plugin/pkg/auth/authorizer/node/graph.go AddPod: an edge per name) walk. The service account is
// spec.serviceAccountName. validation.ts lists the same references by field path, for messages.
import type { Container, Pod, PodSpec } from "kubernetes-types/core/v1";

function containers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...spec.containers, ...((spec.ephemeralContainers ?? []) as Container[])];
}

/** Every secret name the pod refers to (pull secrets, env, volumes of every kind that carries one), once each. */
export function podSecretNames(pod: Pod): string[] {
  const spec = pod.spec;
  if (!spec) return [];
  const names = new Set<string>();
  const add = (n: string | undefined) => {
    if (n) names.add(n);
  };
  for (const s of spec.imagePullSecrets ?? []) add(s.name);
  for (const c of containers(spec)) {
    for (const e of c.envFrom ?? []) add(e.secretRef?.name);
    for (const e of c.env ?? []) add(e.valueFrom?.secretKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    add(v.secret?.secretName);
    for (const s of v.projected?.sources ?? []) add(s.secret?.name);
    add(v.azureFile?.secretName);
    add(v.cephfs?.secretRef?.name);
    add(v.cinder?.secretRef?.name);
    add(v.flexVolume?.secretRef?.name);
    add(v.rbd?.secretRef?.name);
    add(v.scaleIO?.secretRef?.name);
    add(v.iscsi?.secretRef?.name);
    add(v.storageos?.secretRef?.name);
    add(v.csi?.nodePublishSecretRef?.name);
  }
  return [...names];
}

/** Every config map name the pod refers to (env, configMap volumes and projected sources), once each. */
export function podConfigMapNames(pod: Pod): string[] {
  const spec = pod.spec;
  if (!spec) return [];
  const names = new Set<string>();
  const add = (n: string | undefined) => {
    if (n) names.add(n);
  };
  for (const c of containers(spec)) {
    for (const e of c.envFrom ?? []) add(e.configMapRef?.name);
    for (const e of c.env ?? []) add(e.valueFrom?.configMapKeyRef?.name);
  }
  for (const v of spec.volumes ?? []) {
    add(v.configMap?.name);
    for (const s of v.projected?.sources ?? []) add(s.configMap?.name);
  }
  return [...names];
}

/** The service account whose tokens the pod may carry; "default" when unset, as the ServiceAccount admission sets it. */
export function podServiceAccountName(pod: Pod): string {
  return pod.spec?.serviceAccountName || pod.spec?.serviceAccount || "default";
}
