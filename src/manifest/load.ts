// The loader every pod source uses: manifest text → the static pods the kubelet would run, or the
// reasons it would not, each at a line and column. It follows tryDecodeSinglePod and tryDecodePodList
// (k/k pkg/kubelet/config/common.go): decode, check the kind, "name is needed for the pod", defaults,
// the kubelet's applyDefaults, ValidatePodCreate, then PreventStaticPodAPIReferences.
import type { Pod } from "kubernetes-types/core/v1";
import { applyPodDefaults, fieldErrorBody, Quantity, staticPodApiReferenceErrors, tryParseQuantity, validatePod, type FieldError } from "../api";
import { decodeDocument, type SourcePosition } from "./decode";
import { toStaticPod } from "./static-pod";
import type { LoadResult, ManifestError, PodLoader, PodOrigin } from "./types";

// ---- the shape Go's JSON decoder enforces --------------------------------------------------------
//
// The kubelet decodes into typed Go structs, so a value of the wrong JSON type fails the whole pod
// ("cannot unmarshal string into Go struct field … of type int32"). This schema covers the Pod fields
// by their Go types; fields it does not list are passed through unchecked, and unknown fields are not
// errors here (the kubelet drops them silently; the linter warns about them).

type Scalar = "string" | "int32" | "int64" | "bool" | "float" | "quantity" | "intOrString" | "any" | "object";
type Schema = Scalar | { list: Schema } | { map: Schema } | { fields: Record<string, Schema> };

const list = (s: Schema): Schema => ({ list: s });
const map = (s: Schema): Schema => ({ map: s });
const struct = (fields: Record<string, Schema>): Schema => ({ fields });

const S = "string";
const I32 = "int32";
const I64 = "int64";
const B = "bool";
const Q = "quantity";
const OBJ = "object";

const localRef = struct({ name: S });
const optionalRef = struct({ name: S, optional: B });
const keySelector = struct({ name: S, key: S, optional: B });
const fieldRef = struct({ apiVersion: S, fieldPath: S });
const resourceFieldRef = struct({ containerName: S, resource: S, divisor: Q });
const keyToPath = list(struct({ key: S, path: S, mode: I32 }));
const downwardAPIItems = list(struct({ path: S, fieldRef, resourceFieldRef, mode: I32 }));
const seLinuxOptions = struct({ user: S, role: S, type: S, level: S });
const profile = struct({ type: S, localhostProfile: S });
const windowsOptions = struct({ gmsaCredentialSpecName: S, gmsaCredentialSpec: S, runAsUserName: S, hostProcess: B });
const httpGet = struct({ path: S, port: "intOrString", host: S, scheme: S, httpHeaders: list(struct({ name: S, value: S })) });
const exec = struct({ command: list(S) });
const tcpSocket = struct({ port: "intOrString", host: S });
const probe = struct({
  exec, httpGet, tcpSocket, grpc: struct({ port: I32, service: S }),
  initialDelaySeconds: I32, timeoutSeconds: I32, periodSeconds: I32, successThreshold: I32, failureThreshold: I32,
  terminationGracePeriodSeconds: I64,
});
const lifecycleHandler = struct({ exec, httpGet, tcpSocket, sleep: struct({ seconds: I64 }) });
const resources = struct({ limits: map(Q), requests: map(Q), claims: list(struct({ name: S, request: S })) });

const containerFields: Record<string, Schema> = {
  name: S, image: S, command: list(S), args: list(S), workingDir: S,
  ports: list(struct({ name: S, hostPort: I32, containerPort: I32, protocol: S, hostIP: S })),
  envFrom: list(struct({ prefix: S, configMapRef: optionalRef, secretRef: optionalRef })),
  env: list(struct({
    name: S, value: S,
    valueFrom: struct({ fieldRef, resourceFieldRef, configMapKeyRef: keySelector, secretKeyRef: keySelector, fileKeyRef: OBJ }),
  })),
  resources,
  resizePolicy: list(struct({ resourceName: S, restartPolicy: S })),
  restartPolicy: S,
  restartPolicyRules: list(OBJ),
  volumeMounts: list(struct({ name: S, readOnly: B, recursiveReadOnly: S, mountPath: S, subPath: S, mountPropagation: S, subPathExpr: S })),
  volumeDevices: list(struct({ name: S, devicePath: S })),
  livenessProbe: probe, readinessProbe: probe, startupProbe: probe,
  lifecycle: struct({ postStart: lifecycleHandler, preStop: lifecycleHandler, stopSignal: S }),
  terminationMessagePath: S, terminationMessagePolicy: S, imagePullPolicy: S,
  securityContext: struct({
    capabilities: struct({ add: list(S), drop: list(S) }), privileged: B, seLinuxOptions, windowsOptions,
    runAsUser: I64, runAsGroup: I64, runAsNonRoot: B, readOnlyRootFilesystem: B, allowPrivilegeEscalation: B,
    procMount: S, seccompProfile: profile, appArmorProfile: profile,
  }),
  stdin: B, stdinOnce: B, tty: B,
};
const container = struct(containerFields);
const ephemeralContainer = struct({ ...containerFields, targetContainerName: S });

const volume = struct({
  name: S,
  hostPath: struct({ path: S, type: S }),
  emptyDir: struct({ medium: S, sizeLimit: Q }),
  secret: struct({ secretName: S, items: keyToPath, defaultMode: I32, optional: B }),
  configMap: struct({ name: S, items: keyToPath, defaultMode: I32, optional: B }),
  nfs: struct({ server: S, path: S, readOnly: B }),
  persistentVolumeClaim: struct({ claimName: S, readOnly: B }),
  downwardAPI: struct({ items: downwardAPIItems, defaultMode: I32 }),
  projected: struct({
    defaultMode: I32,
    sources: list(struct({
      secret: struct({ name: S, items: keyToPath, optional: B }),
      configMap: struct({ name: S, items: keyToPath, optional: B }),
      downwardAPI: struct({ items: downwardAPIItems }),
      serviceAccountToken: struct({ audience: S, expirationSeconds: I64, path: S }),
      clusterTrustBundle: OBJ, podCertificate: OBJ,
    })),
  }),
  csi: struct({ driver: S, readOnly: B, fsType: S, volumeAttributes: map(S), nodePublishSecretRef: localRef }),
  image: struct({ reference: S, pullPolicy: S }),
  ephemeral: OBJ, gitRepo: OBJ, gcePersistentDisk: OBJ, awsElasticBlockStore: OBJ, iscsi: OBJ, glusterfs: OBJ,
  rbd: OBJ, flexVolume: OBJ, cinder: OBJ, cephfs: OBJ, flocker: OBJ, fc: OBJ, azureFile: OBJ, vsphereVolume: OBJ,
  quobyte: OBJ, azureDisk: OBJ, photonPersistentDisk: OBJ, portworxVolume: OBJ, scaleIO: OBJ, storageos: OBJ,
});

const podSpec = struct({
  volumes: list(volume),
  initContainers: list(container),
  containers: list(container),
  ephemeralContainers: list(ephemeralContainer),
  restartPolicy: S, terminationGracePeriodSeconds: I64, activeDeadlineSeconds: I64, dnsPolicy: S,
  nodeSelector: map(S), serviceAccountName: S, serviceAccount: S, automountServiceAccountToken: B, nodeName: S,
  hostNetwork: B, hostPID: B, hostIPC: B, shareProcessNamespace: B,
  securityContext: struct({
    seLinuxOptions, windowsOptions, runAsUser: I64, runAsGroup: I64, runAsNonRoot: B, supplementalGroups: list(I64),
    supplementalGroupsPolicy: S, fsGroup: I64, sysctls: list(struct({ name: S, value: S })), fsGroupChangePolicy: S,
    seccompProfile: profile, appArmorProfile: profile, seLinuxChangePolicy: S,
  }),
  imagePullSecrets: list(localRef), hostname: S, subdomain: S, affinity: OBJ, schedulerName: S,
  tolerations: list(struct({ key: S, operator: S, value: S, effect: S, tolerationSeconds: I64 })),
  hostAliases: list(struct({ ip: S, hostnames: list(S) })),
  priorityClassName: S, priority: I32,
  dnsConfig: struct({ nameservers: list(S), searches: list(S), options: list(struct({ name: S, value: S })) }),
  readinessGates: list(struct({ conditionType: S })), runtimeClassName: S, enableServiceLinks: B, preemptionPolicy: S,
  overhead: map(Q), topologySpreadConstraints: list(OBJ), setHostnameAsFQDN: B, os: struct({ name: S }), hostUsers: B,
  schedulingGates: list(struct({ name: S })),
  resourceClaims: list(struct({ name: S, resourceClaimName: S, resourceClaimTemplateName: S })),
  resources, hostnameOverride: S,
});

const objectMeta = struct({
  name: S, generateName: S, namespace: S, selfLink: S, uid: S, resourceVersion: S, generation: I64,
  creationTimestamp: "any", deletionTimestamp: "any", deletionGracePeriodSeconds: I64,
  labels: map(S), annotations: map(S), ownerReferences: list(OBJ), finalizers: list(S), managedFields: list(OBJ),
});

const podSchema = struct({ apiVersion: S, kind: S, metadata: objectMeta, spec: podSpec, status: OBJ });

// ---- checking and normalising against the schema ---------------------------------------------------

interface TypeIssue {
  field: string;
  message: string;
}

function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "a boolean";
  return typeof v;
}

const KUBELET_DECODE = "the kubelet cannot decode the pod";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const childPath = (path: string, name: string): string => (path ? `${path}.${name}` : name);

function zeroValue(s: Schema): unknown {
  if (s === "string") return "";
  if (s === "int32" || s === "int64" || s === "float" || s === "intOrString") return 0;
  if (s === "bool") return false;
  if (s === "quantity") return "0";
  if (typeof s === "object" && "fields" in s) return {};
  return null;
}

function checkInt(v: number, bits: 32 | 64, path: string, issues: TypeIssue[]): void {
  if (!Number.isInteger(v)) {
    issues.push({ field: path, message: `must be an integer, not ${v} (${KUBELET_DECODE})` });
    return;
  }
  const [lo, hi] = bits === 32 ? [-2147483648, 2147483647] : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
  if (v < lo || v > hi) issues.push({ field: path, message: `${v} does not fit in an int${bits} (${KUBELET_DECODE})` });
}

/**
 * Checks v against s, pushing an issue per mismatch, and returns the value as the pod will hold it:
 * nulls dropped (Go leaves the zero value), quantities as strings.
 */
function conform(v: unknown, s: Schema, path: string, issues: TypeIssue[]): unknown {
  const wrong = (want: string): unknown => {
    issues.push({ field: path, message: `must be ${want}, not ${jsonKind(v)} (${KUBELET_DECODE})` });
    return v;
  };
  switch (s) {
    case "any":
      return v;
    case "object":
      return isRecord(v) ? v : wrong("a mapping");
    case "string":
      return typeof v === "string" ? v : wrong("a string");
    case "bool":
      return typeof v === "boolean" ? v : wrong("a boolean (true or false)");
    case "float":
      return typeof v === "number" ? v : wrong("a number");
    case "int32":
    case "int64":
      if (typeof v !== "number") return wrong("an integer");
      checkInt(v, s === "int32" ? 32 : 64, path, issues);
      return v;
    case "intOrString":
      if (typeof v === "string") return v;
      if (typeof v !== "number") return wrong("an integer or a string");
      checkInt(v, 32, path, issues);
      return v;
    case "quantity": {
      if (typeof v !== "string" && typeof v !== "number") return wrong("a quantity such as 100m or 1Gi");
      // Quantity.UnmarshalJSON trims spaces before parsing.
      const text = typeof v === "string" ? v.trim() : v;
      const q = tryParseQuantity(text);
      if (!(q instanceof Quantity)) {
        issues.push({ field: path, message: `${JSON.stringify(v)}: ${q.message}` });
        return v;
      }
      return typeof text === "number" ? q.toString() : text;
    }
  }
  if ("list" in s) {
    if (!Array.isArray(v)) return wrong("a list");
    return v.map((item, i) => (item === null ? zeroValue(s.list) : conform(item, s.list, `${path}[${i}]`, issues)));
  }
  if ("map" in s) {
    if (!isRecord(v)) return wrong("a mapping");
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) out[k] = item === null ? zeroValue(s.map) : conform(item, s.map, `${path}[${k}]`, issues);
    return out;
  }
  if (!isRecord(v)) return wrong("a mapping");
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) {
    if (item === null) continue;
    const fieldSchema = s.fields[k];
    out[k] = fieldSchema === undefined ? item : conform(item, fieldSchema, childPath(path, k), issues);
  }
  return out;
}

// ---- loading -------------------------------------------------------------------------------------

interface Located {
  file: string;
  positionOf(field: string): SourcePosition;
}

function located(where: Located, field: string, message: string, errorField = field): ManifestError {
  const p = where.positionOf(field);
  return { file: where.file, line: p.line, column: p.column, field: errorField, message };
}

/** The kind and apiVersion checks the legacy decoder makes before it decodes anything else. */
function checkTypeMeta(obj: Record<string, unknown>, origin: PodOrigin, where: Located): ManifestError[] | "Pod" | "PodList" {
  const { kind, apiVersion } = obj;
  if (kind === undefined || kind === null || kind === "") {
    return [located(where, "", `Object 'Kind' is missing (the manifest needs "kind: Pod")`, "kind")];
  }
  if (typeof kind !== "string") return [located(where, "kind", `must be a string, not ${jsonKind(kind)} (${KUBELET_DECODE})`)];
  if (apiVersion === undefined || apiVersion === null || apiVersion === "") {
    return [located(where, "", `Object 'apiVersion' is missing (the manifest needs "apiVersion: v1")`, "apiVersion")];
  }
  if (typeof apiVersion !== "string") return [located(where, "apiVersion", `must be a string, not ${jsonKind(apiVersion)} (${KUBELET_DECODE})`)];
  const listAllowed = origin.source === "http";
  if (apiVersion === "v1" && (kind === "Pod" || (kind === "PodList" && listAllowed))) return kind;
  const wanted = listAllowed ? "kind Pod or PodList" : "kind Pod";
  const field = apiVersion !== "v1" ? "apiVersion" : "kind";
  let message = `the kubelet runs only ${wanted} in apiVersion v1, not kind ${JSON.stringify(kind)} in apiVersion ${JSON.stringify(apiVersion)}`;
  if (kind === "PodList" && apiVersion === "v1") message = "a PodList is accepted only from a manifest URL; a static pod file holds a single Pod";
  return [located(where, field, message)];
}

/** One pod after decoding: name check, defaults, static pod naming, validation, API references. */
function loadPod(raw: Record<string, unknown>, prefix: string, origin: PodOrigin, where: Located): { pod?: Pod; errors: ManifestError[] } {
  const at = (field: string): string => (prefix ? (field ? `${prefix}.${field}` : prefix) : field);
  const issues: TypeIssue[] = [];
  const conformed = conform(raw, podSchema, "", issues);
  if (issues.length > 0) return { errors: issues.map((i) => located(where, at(i.field), i.message)) };
  const pod = conformed as Pod;
  if (!pod.metadata?.name) return { errors: [located(where, at("metadata.name"), "name is needed for the pod")] };

  applyPodDefaults(pod);
  const staticPod = toStaticPod(pod, origin);
  const toError = (e: FieldError, message: string): ManifestError => located(where, at(e.field), message);
  const errors = validatePod(staticPod).map((e) => toError(e, fieldErrorBody(e)));
  // The kubelet checks API references only once validation passed; both are reported here, so that
  // one edit can fix everything.
  errors.push(...staticPodApiReferenceErrors(staticPod).map((e) => toError(e, e.message)));
  return errors.length > 0 ? { errors } : { pod: staticPod, errors: [] };
}

/**
 * Loads a manifest: one Pod from a file, a Pod or a PodList from a URL (origin.source "http").
 * Never throws; every error names origin.location, a line, a column and a field.
 */
export const loadStaticPods: PodLoader = (text: string, origin: PodOrigin): LoadResult => {
  const file = origin.location;
  try {
    const decoded = decodeDocument(text, file);
    if (!decoded.ok) return { ok: false, errors: decoded.errors };
    const where: Located = { file, positionOf: decoded.positionOf };
    const value = decoded.value;
    if (!isRecord(value)) {
      const message =
        value === null
          ? "empty manifest (the kubelet says: couldn't parse as pod(Object 'Kind' is missing in 'null'))"
          : `a manifest must be a mapping with apiVersion, kind, metadata and spec, not ${jsonKind(value)}`;
      return { ok: false, errors: [located(where, "", message)] };
    }
    const kind = checkTypeMeta(value, origin, where);
    if (Array.isArray(kind)) return { ok: false, errors: kind };

    if (kind === "Pod") {
      const { pod, errors } = loadPod(value, "", origin, where);
      return pod ? { ok: true, pods: [pod] } : { ok: false, errors };
    }
    const items = value.items ?? [];
    if (!Array.isArray(items)) return { ok: false, errors: [located(where, "items", `must be a list, not ${jsonKind(items)} (${KUBELET_DECODE})`)] };
    const pods: Pod[] = [];
    const errors: ManifestError[] = [];
    items.forEach((item, i) => {
      if (!isRecord(item)) {
        errors.push(located(where, `items[${i}]`, `must be a mapping, not ${jsonKind(item)} (${KUBELET_DECODE})`));
        return;
      }
      const result = loadPod(item, `items[${i}]`, origin, where);
      if (result.pod) pods.push(result.pod);
      errors.push(...result.errors);
    });
    // The kubelet rejects the whole list when one pod in it is invalid.
    return errors.length > 0 ? { ok: false, errors } : { ok: true, pods };
  } catch (e) {
    const message = `the manifest cannot be loaded: ${e instanceof Error ? e.message : String(e)}`;
    return { ok: false, errors: [{ file, line: 1, column: 1, field: "", message }] };
  }
};
