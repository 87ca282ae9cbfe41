// PreventStaticPodAPIReferences (k/k pkg/api/pod/util.go, beta and on by default since 1.34): a static
// pod may not name anything it would need the API server for. Apart from validatePod because the
// kubelet runs it as its own admission step, with plain errors rather than field.Errors.
import type { Pod, PodSpec } from "kubernetes-types/core/v1";
import { type FieldError, goQuote } from "./field-error";
import { podReferences } from "./pod-references";

/** Volume types that need nothing from the API server (HasAPIObjectReference's allow list). */
const LOCAL_VOLUME_TYPES = [
  "awsElasticBlockStore",
  "azureDisk",
  "cephfs",
  "cinder",
  "downwardAPI",
  "emptyDir",
  "fc",
  "flexVolume",
  "flocker",
  "gcePersistentDisk",
  "gitRepo",
  "hostPath",
  "image",
  "iscsi",
  "nfs",
  "photonPersistentDisk",
  "portworxVolume",
  "quobyte",
  "rbd",
  "scaleIO",
  "storageos",
  "vsphereVolume",
];
const API_VOLUME_TYPES: ReadonlyArray<readonly [string, string]> = [
  ["configMap", "configmaps (via configmap volumes)"],
  ["secret", "secrets (via secret volumes)"],
  ["csi", "csidrivers (via CSI volumes)"],
  ["glusterfs", "endpoints (via glusterFS volumes)"],
  ["persistentVolumeClaim", "persistentvolumeclaims"],
  ["ephemeral", "persistentvolumeclaims (via ephemeral volumes)"],
  ["azureFile", "secrets (via azureFile volumes)"],
];
const PROJECTED_API_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ["configMap", "configmaps (via projected volumes)"],
  ["secret", "secrets (via projected volumes)"],
  ["serviceAccountToken", "serviceaccounts (via projected volumes)"],
  ["clusterTrustBundle", "clustertrustbundles"],
  ["podCertificate", "podcertificates"],
];

const present = (v: unknown): boolean => v !== undefined && v !== null;

function staticRefError(field: string, resource: string): FieldError {
  const detail = `static pods may not reference ${resource}`;
  // The kubelet returns this as a plain error, not a field.Error: message is its exact text.
  return { field, type: "Forbidden", detail, message: detail };
}

export interface StaticPodReferenceOptions {
  /**
   * The agent runs with --local-objects (nodeagent's own opt-in, past the kubelet): ConfigMaps and
   * Secrets come from files, so static and pushed pods may name them (volumes, projected sources,
   * env, envFrom, imagePullSecrets). Service accounts, resource claims and the other API volumes
   * stay refused.
   */
  localObjects?: boolean;
}

/**
 * The PreventStaticPodAPIReferences check (beta and on by default since 1.34): a static pod may not
 * name a service account, secret, config map, resource claim or any volume that needs the API
 * server. Like the kubelet, it stops at the first reference, checked in the kubelet's order;
 * `field` points at the reference so that it can be positioned.
 */
export function staticPodApiReferenceErrors(pod: Pod, options: StaticPodReferenceOptions = {}): FieldError[] {
  const spec: PodSpec = pod.spec ?? { containers: [] };
  const local = options.localObjects === true;
  if (spec.serviceAccountName) return [staticRefError("spec.serviceAccountName", "serviceaccounts")];
  // The kubelet checks every secret reference before any config map reference (VisitPodSecretNames first).
  const refs = local ? [] : podReferences({ spec });
  const secret = refs.find((r) => r.kind === "Secret");
  if (secret !== undefined) return [staticRefError(secret.field, "secrets")];
  const configMap = refs.find((r) => r.kind === "ConfigMap");
  if (configMap !== undefined) return [staticRefError(configMap.field, "configmaps")];
  if ((spec.resourceClaims ?? []).length > 0) return [staticRefError("spec.resourceClaims", "resourceclaims")];
  const volumes = spec.volumes ?? [];
  for (let i = 0; i < volumes.length; i++) {
    const v = volumes[i] as unknown as Record<string, unknown>;
    const base = `spec.volumes[${i}]`;
    if (LOCAL_VOLUME_TYPES.some((k) => present(v[k]))) continue;
    if (local && (present(v.configMap) || present(v.secret))) continue;
    const api = API_VOLUME_TYPES.find(([k]) => present(v[k]));
    if (api) return [staticRefError(`${base}.${api[0]}`, api[1])];
    if (present(v.projected)) {
      const sources = ((v.projected as { sources?: unknown[] }).sources ?? []) as Array<Record<string, unknown>>;
      for (let j = 0; j < sources.length; j++) {
        const s = sources[j]!;
        if (local && (present(s.configMap) || present(s.secret))) continue;
        const hit = PROJECTED_API_SOURCES.find(([k]) => present(s[k]));
        if (hit) return [staticRefError(`${base}.projected.sources[${j}].${hit[0]}`, hit[1])];
        if (present(s.downwardAPI)) continue;
        const message = `unknown source for projected volume ${goQuote(String(v.name ?? ""))}`;
        return [{ field: `${base}.projected.sources[${j}]`, type: "Forbidden", detail: message, message }];
      }
      continue;
    }
    // Two spaces before %q, as upstream prints it.
    const message = `unknown volume type for volume  ${goQuote(String(v.name ?? ""))}`;
    return [{ field: base, type: "Forbidden", detail: message, message }];
  }
  return [];
}
