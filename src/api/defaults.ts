// The API defaults a v1 Pod gets when the kubelet decodes a manifest: the legacy scheme's decoder runs
// the generated defaulters (pkg/apis/core/v1/zz_generated.defaults.go, SetObjectDefaults_Pod) which
// call the hand-written ones in pkg/apis/core/v1/defaults.go. Validation runs after this, so a
// manifest that leaves these fields out is valid, and the agent can rely on them being set.
import type { Container, EnvVar, HTTPGetAction, ObjectFieldSelector, Pod, PodSpec, Probe, Volume } from "kubernetes-types/core/v1";

/** pkg/apis/core/v1 constants. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
export const DEFAULT_SCHEDULER_NAME = "default-scheduler";
export const TERMINATION_MESSAGE_PATH_DEFAULT = "/dev/termination-log";
/** 0644, the default mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_VOLUME_MODE = 0o644;

/**
 * The tag and digest of an image reference, as parsers.ParseImageName reports them through
 * docker/distribution's reference grammar; undefined when the reference does not parse (the
 * defaulter then ignores the error and treats the image as tagged).
 */
export function parseImageReference(image: string): { name: string; tag: string; digest: string } | undefined {
  // A 64-hex string is an image ID, not a name ("cannot specify 64-byte hexadecimal strings").
  if (/^[a-f0-9]{64}$/.test(image)) return undefined;
  const match = REFERENCE.exec(image);
  if (!match) return undefined;
  const name = match[1]!;
  if (name.length > 255) return undefined;
  let tag = match[2] ?? "";
  const digest = match[3] ?? "";
  if (digest !== "" && !validDigest(digest)) return undefined;
  // "If no tag was specified, use the default "latest"" (pkg/util/parsers).
  if (tag === "" && digest === "") tag = "latest";
  return { name, tag, digest };
}

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?)`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

function validDigest(digest: string): boolean {
  const [algorithm, hex] = digest.split(":") as [string, string];
  const lengths: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
  const want = lengths[algorithm];
  return want !== undefined && hex.length === want && /^[a-f0-9]+$/.test(hex);
}

/** SetDefaults_Container: Always for :latest (or no tag and no digest), else IfNotPresent. */
export function defaultImagePullPolicy(image: string): "Always" | "IfNotPresent" {
  return parseImageReference(image)?.tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Container): void {
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultImagePullPolicy(c.image ?? "");
  if (!c.terminationMessagePath) c.terminationMessagePath = TERMINATION_MESSAGE_PATH_DEFAULT;
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = "File";
  for (const p of c.ports ?? []) if (!p.protocol) p.protocol = "TCP";
  for (const e of c.env ?? []) defaultEnv(e);
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) if (probe) defaultProbe(probe);
  if (c.lifecycle?.postStart?.httpGet) defaultHTTPGet(c.lifecycle.postStart.httpGet);
  if (c.lifecycle?.preStop?.httpGet) defaultHTTPGet(c.lifecycle.preStop.httpGet);
}

function defaultEnv(e: EnvVar): void {
  if (e.valueFrom?.fieldRef) defaultFieldRef(e.valueFrom.fieldRef);
}

function defaultFieldRef(f: ObjectFieldSelector): void {
  if (!f.apiVersion) f.apiVersion = "v1";
}

/** SetDefaults_Probe and the +default marker on GRPCAction.service. */
function defaultProbe(p: Probe): void {
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  if (p.httpGet) defaultHTTPGet(p.httpGet);
  if (p.grpc && p.grpc.service === undefined) p.grpc.service = "";
}

function defaultHTTPGet(h: HTTPGetAction): void {
  if (!h.path) h.path = "/";
  if (!h.scheme) h.scheme = "HTTP";
}

/** The volume source keys of v1.VolumeSource; a volume with none of them becomes an emptyDir. */
export const VOLUME_SOURCE_KEYS = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
  "image",
] as const;

type LooseVolume = Volume & { image?: { reference?: string; pullPolicy?: string } };

function defaultVolume(v: LooseVolume): void {
  const record = v as unknown as Record<string, unknown>;
  // SetDefaults_Volume: AllPtrFieldsNil(&VolumeSource) → emptyDir: {}.
  if (VOLUME_SOURCE_KEYS.every((k) => record[k] === undefined || record[k] === null)) v.emptyDir = {};
  if (v.hostPath && v.hostPath.type === undefined) v.hostPath.type = "";
  if (v.secret && v.secret.defaultMode === undefined) v.secret.defaultMode = DEFAULT_VOLUME_MODE;
  if (v.configMap && v.configMap.defaultMode === undefined) v.configMap.defaultMode = DEFAULT_VOLUME_MODE;
  if (v.downwardAPI) {
    if (v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = DEFAULT_VOLUME_MODE;
    for (const item of v.downwardAPI.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
  }
  if (v.projected) {
    if (v.projected.defaultMode === undefined) v.projected.defaultMode = DEFAULT_VOLUME_MODE;
    for (const s of v.projected.sources ?? []) {
      for (const item of s.downwardAPI?.items ?? []) if (item.fieldRef) defaultFieldRef(item.fieldRef);
      if (s.serviceAccountToken && s.serviceAccountToken.expirationSeconds === undefined) {
        s.serviceAccountToken.expirationSeconds = 3600;
      }
    }
  }
  if (v.iscsi && !v.iscsi.iscsiInterface) v.iscsi.iscsiInterface = "default";
  if (v.rbd) {
    if (!v.rbd.pool) v.rbd.pool = "rbd";
    if (!v.rbd.user) v.rbd.user = "admin";
    if (!v.rbd.keyring) v.rbd.keyring = "/etc/ceph/keyring";
  }
  if (v.azureDisk) {
    if (!v.azureDisk.cachingMode) v.azureDisk.cachingMode = "ReadWrite";
    if (!v.azureDisk.kind) v.azureDisk.kind = "Shared";
    if (!v.azureDisk.fsType) v.azureDisk.fsType = "ext4";
    if (v.azureDisk.readOnly === undefined) v.azureDisk.readOnly = false;
  }
  if (v.scaleIO) {
    if (!v.scaleIO.storageMode) v.scaleIO.storageMode = "ThinProvisioned";
    if (!v.scaleIO.fsType) v.scaleIO.fsType = "xfs";
  }
  // ImageVolume: the same pull policy rule as containers, but only an explicit :latest means Always.
  if (v.image && !v.image.pullPolicy) {
    v.image.pullPolicy = parseImageReference(v.image.reference ?? "")?.tag === "latest" ? "Always" : "IfNotPresent";
  }
}

/** SetDefaults_Pod: requests default to limits, key by key, for init and app containers. */
function defaultRequestsFromLimits(c: Container): void {
  const limits = c.resources?.limits;
  if (!c.resources || !limits) return;
  const requests = (c.resources.requests ??= {});
  for (const [name, value] of Object.entries(limits)) if (!(name in requests)) requests[name] = value;
}

/** With host networking every container port is also a host port (defaultHostNetworkPorts). */
function defaultHostNetworkPorts(containers: Container[]): void {
  for (const c of containers) for (const p of c.ports ?? []) if (!p.hostPort) p.hostPort = p.containerPort;
}

function defaultPodSpec(spec: PodSpec): void {
  if (!spec.dnsPolicy) spec.dnsPolicy = "ClusterFirst";
  if (!spec.restartPolicy) spec.restartPolicy = "Always";
  if (!spec.securityContext) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) {
    spec.terminationGracePeriodSeconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  } else if (spec.terminationGracePeriodSeconds < 0) {
    // Since 1.27 a negative grace period is converted to 1 when a v1 Pod is decoded
    // (Convert_v1_Pod_To_core_Pod, k/k #115606); it is not a validation error.
    spec.terminationGracePeriodSeconds = 1;
  }
  if (!spec.schedulerName) spec.schedulerName = DEFAULT_SCHEDULER_NAME;
}

/**
 * Applies the API defaults to a decoded v1 Pod in place (and returns it), in the order
 * SetObjectDefaults_Pod runs them: SetDefaults_Pod, SetDefaults_PodSpec, then volumes and containers.
 */
export function applyPodDefaults(pod: Pod): Pod {
  const spec = (pod.spec ??= { containers: [] });
  spec.containers ??= [];
  const all = [...(spec.initContainers ?? []), ...spec.containers];

  // SetDefaults_Pod.
  for (const c of all) defaultRequestsFromLimits(c);
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork) {
    defaultHostNetworkPorts(spec.containers);
    defaultHostNetworkPorts(spec.initContainers ?? []);
  }

  defaultPodSpec(spec);
  for (const v of spec.volumes ?? []) defaultVolume(v);
  for (const c of all) defaultContainer(c);
  for (const c of spec.ephemeralContainers ?? []) defaultContainer(c as Container);
  return pod;
}
