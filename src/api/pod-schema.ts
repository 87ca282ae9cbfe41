// The v1 Pod's fields and their Go types, and the check Go's JSON decoder makes against them when the
// kubelet decodes a manifest (k/k pkg/kubelet/config/common.go tryDecodeSinglePod → the legacy codec):
// a value of the wrong JSON type fails the whole pod ("cannot unmarshal string into Go struct field …
// of type int32"), while a field the struct does not have is dropped without a word (the codec is not
// strict). The linter reports those dropped fields as unknown; the loader only needs the type errors.
//
// Each struct lists every field of its kubernetes-types (1.30) interface, which the compiler checks,
// plus the fields Kubernetes added since (1.31–1.34), listed apart so that the difference is visible.
import type {
  Affinity,
  AppArmorProfile,
  Capabilities,
  ConfigMapKeySelector,
  Container,
  ContainerPort,
  ContainerResizePolicy,
  EnvFromSource,
  EnvVar,
  EnvVarSource,
  ExecAction,
  GRPCAction,
  HTTPGetAction,
  HTTPHeader,
  KeyToPath,
  Lifecycle,
  LifecycleHandler,
  LocalObjectReference,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  ObjectFieldSelector,
  Pod,
  PodAffinityTerm,
  PodDNSConfig,
  PodSecurityContext,
  PodSpec,
  Probe,
  ResourceFieldSelector,
  ResourceRequirements,
  SeccompProfile,
  SecurityContext,
  SELinuxOptions,
  TCPSocketAction,
  Toleration,
  TopologySpreadConstraint,
  Volume,
  VolumeMount,
  VolumeProjection,
  WindowsSecurityContextOptions,
} from "kubernetes-types/core/v1";
import type { LabelSelector, LabelSelectorRequirement, ObjectMeta } from "kubernetes-types/meta/v1";

/** Go's scalar kinds as JSON sees them; "object" is a struct whose fields are not checked here. */
export type ScalarSchema = "string" | "int32" | "int64" | "bool" | "quantity" | "intOrString" | "any" | "object";
export type Schema = ScalarSchema | { list: Schema } | { map: Schema } | { fields: Readonly<Record<string, Schema>> };

const list = (s: Schema): Schema => ({ list: s });
const map = (s: Schema): Schema => ({ map: s });

/** A struct: every field of T (the compiler holds the list to kubernetes-types) and the newer ones. */
function struct<T>(fields: { [K in keyof Required<T>]-?: Schema }, newer: Record<string, Schema> = {}): Schema {
  return { fields: { ...(fields as Record<string, Schema>), ...newer } };
}

const S = "string";
const I32 = "int32";
const I64 = "int64";
const B = "bool";
const Q = "quantity";
const ANY = "any";
const strings = list(S);

const localRef = struct<LocalObjectReference>({ name: S });
const optionalRef = { fields: { name: S, optional: B } } as const satisfies Schema;
const keySelector = struct<ConfigMapKeySelector>({ name: S, key: S, optional: B });
const fieldRef = struct<ObjectFieldSelector>({ apiVersion: S, fieldPath: S });
const resourceFieldRef = struct<ResourceFieldSelector>({ containerName: S, resource: S, divisor: Q });
const keyToPath = list(struct<KeyToPath>({ key: S, path: S, mode: I32 }));
const downwardAPIItems = list({ fields: { path: S, fieldRef, resourceFieldRef, mode: I32 } });
const seLinuxOptions = struct<SELinuxOptions>({ user: S, role: S, type: S, level: S });
const seccompProfile = struct<SeccompProfile>({ type: S, localhostProfile: S });
const appArmorProfile = struct<AppArmorProfile>({ type: S, localhostProfile: S });
const windowsOptions = struct<WindowsSecurityContextOptions>({ gmsaCredentialSpecName: S, gmsaCredentialSpec: S, runAsUserName: S, hostProcess: B });
const labelSelector = struct<LabelSelector>({
  matchLabels: map(S),
  matchExpressions: list(struct<LabelSelectorRequirement>({ key: S, operator: S, values: strings })),
});

const exec = struct<ExecAction>({ command: strings });
const httpGet = struct<HTTPGetAction>({
  path: S,
  port: "intOrString",
  host: S,
  scheme: S,
  httpHeaders: list(struct<HTTPHeader>({ name: S, value: S })),
});
const tcpSocket = struct<TCPSocketAction>({ port: "intOrString", host: S });
const probe = struct<Probe>({
  exec,
  httpGet,
  tcpSocket,
  grpc: struct<GRPCAction>({ port: I32, service: S }),
  initialDelaySeconds: I32,
  timeoutSeconds: I32,
  periodSeconds: I32,
  successThreshold: I32,
  failureThreshold: I32,
  terminationGracePeriodSeconds: I64,
});
const lifecycleHandler = struct<LifecycleHandler>({ exec, httpGet, tcpSocket, sleep: { fields: { seconds: I64 } } });
const resources = struct<ResourceRequirements>({ limits: map(Q), requests: map(Q), claims: list({ fields: { name: S, request: S /* 1.31 */ } }) });

const envVarSource = struct<EnvVarSource>(
  { fieldRef, resourceFieldRef, configMapKeyRef: keySelector, secretKeyRef: keySelector },
  { fileKeyRef: { fields: { volumeName: S, path: S, key: S, optional: B } } /* 1.34, EnvFiles */ },
);

const containerFields = {
  name: S,
  image: S,
  command: strings,
  args: strings,
  workingDir: S,
  ports: list(struct<ContainerPort>({ name: S, hostPort: I32, containerPort: I32, protocol: S, hostIP: S })),
  envFrom: list(struct<EnvFromSource>({ prefix: S, configMapRef: optionalRef, secretRef: optionalRef })),
  env: list(struct<EnvVar>({ name: S, value: S, valueFrom: envVarSource })),
  resources,
  resizePolicy: list(struct<ContainerResizePolicy>({ resourceName: S, restartPolicy: S })),
  restartPolicy: S,
  volumeMounts: list(struct<VolumeMount>({ name: S, readOnly: B, recursiveReadOnly: S, mountPath: S, subPath: S, mountPropagation: S, subPathExpr: S })),
  volumeDevices: list({ fields: { name: S, devicePath: S } }),
  livenessProbe: probe,
  readinessProbe: probe,
  startupProbe: probe,
  lifecycle: struct<Lifecycle>({ postStart: lifecycleHandler, preStop: lifecycleHandler }, { stopSignal: S /* 1.33 */ }),
  terminationMessagePath: S,
  terminationMessagePolicy: S,
  imagePullPolicy: S,
  securityContext: struct<SecurityContext>({
    capabilities: struct<Capabilities>({ add: strings, drop: strings }),
    privileged: B,
    seLinuxOptions,
    windowsOptions,
    runAsUser: I64,
    runAsGroup: I64,
    runAsNonRoot: B,
    readOnlyRootFilesystem: B,
    allowPrivilegeEscalation: B,
    procMount: S,
    seccompProfile,
    appArmorProfile,
  }),
  stdin: B,
  stdinOnce: B,
  tty: B,
} satisfies { [K in keyof Required<Container>]-?: Schema };
/** ContainerRestartRule (1.34, ContainerRestartRules). */
const restartPolicyRules = list({
  fields: { action: S, exitCodes: { fields: { operator: S, values: list(I32) } } },
});
const container = struct<Container>(containerFields, { restartPolicyRules });
const ephemeralContainer = struct<Container & { targetContainerName?: string }>({ ...containerFields, targetContainerName: S }, { restartPolicyRules });

const pvcSpec = {
  fields: {
    accessModes: strings,
    selector: labelSelector,
    resources: { fields: { limits: map(Q), requests: map(Q) } },
    volumeName: S,
    storageClassName: S,
    volumeMode: S,
    dataSource: { fields: { apiGroup: S, kind: S, name: S } },
    dataSourceRef: { fields: { apiGroup: S, kind: S, name: S, namespace: S } },
    volumeAttributesClassName: S,
  },
} as const satisfies Schema;

const objectMetaFields = {
  name: S,
  generateName: S,
  namespace: S,
  selfLink: S,
  uid: S,
  resourceVersion: S,
  generation: I64,
  creationTimestamp: ANY,
  deletionTimestamp: ANY,
  deletionGracePeriodSeconds: I64,
  labels: map(S),
  annotations: map(S),
  ownerReferences: list({ fields: { apiVersion: S, kind: S, name: S, uid: S, controller: B, blockOwnerDeletion: B } }),
  finalizers: strings,
  managedFields: list(ANY),
} satisfies { [K in keyof Required<ObjectMeta>]-?: Schema };
const objectMeta = struct<ObjectMeta>(objectMetaFields);

const volumeProjection = struct<VolumeProjection>(
  {
    secret: { fields: { name: S, items: keyToPath, optional: B } },
    configMap: { fields: { name: S, items: keyToPath, optional: B } },
    downwardAPI: { fields: { items: downwardAPIItems } },
    serviceAccountToken: { fields: { audience: S, expirationSeconds: I64, path: S } },
    clusterTrustBundle: { fields: { name: S, signerName: S, labelSelector, optional: B, path: S } },
  },
  {
    /** 1.34, PodCertificateRequest projection. */
    podCertificate: {
      fields: { signerName: S, keyType: S, maxExpirationSeconds: I32, credentialBundlePath: S, keyPath: S, certificateChainPath: S },
    },
  },
);

const secretRefFs = (extra: Record<string, Schema>): Schema => ({ fields: { fsType: S, readOnly: B, secretRef: localRef, ...extra } });

const volume = struct<Volume>(
  {
    name: S,
    hostPath: { fields: { path: S, type: S } },
    emptyDir: { fields: { medium: S, sizeLimit: Q } },
    secret: { fields: { secretName: S, items: keyToPath, defaultMode: I32, optional: B } },
    configMap: { fields: { name: S, items: keyToPath, defaultMode: I32, optional: B } },
    nfs: { fields: { server: S, path: S, readOnly: B } },
    persistentVolumeClaim: { fields: { claimName: S, readOnly: B } },
    downwardAPI: { fields: { items: downwardAPIItems, defaultMode: I32 } },
    projected: { fields: { defaultMode: I32, sources: list(volumeProjection) } },
    csi: { fields: { driver: S, readOnly: B, fsType: S, volumeAttributes: map(S), nodePublishSecretRef: localRef } },
    ephemeral: { fields: { volumeClaimTemplate: { fields: { metadata: objectMeta, spec: pvcSpec } } } },
    gitRepo: { fields: { repository: S, revision: S, directory: S } },
    gcePersistentDisk: { fields: { pdName: S, fsType: S, partition: I32, readOnly: B } },
    awsElasticBlockStore: { fields: { volumeID: S, fsType: S, partition: I32, readOnly: B } },
    iscsi: secretRefFs({
      targetPortal: S,
      iqn: S,
      lun: I32,
      iscsiInterface: S,
      portals: strings,
      chapAuthDiscovery: B,
      chapAuthSession: B,
      initiatorName: S,
    }),
    glusterfs: { fields: { endpoints: S, path: S, readOnly: B } },
    rbd: secretRefFs({ monitors: strings, image: S, pool: S, user: S, keyring: S }),
    flexVolume: secretRefFs({ driver: S, options: map(S) }),
    cinder: secretRefFs({ volumeID: S }),
    cephfs: { fields: { monitors: strings, path: S, user: S, secretFile: S, secretRef: localRef, readOnly: B } },
    flocker: { fields: { datasetName: S, datasetUUID: S } },
    fc: { fields: { targetWWNs: strings, lun: I32, fsType: S, readOnly: B, wwids: strings } },
    azureFile: { fields: { secretName: S, shareName: S, readOnly: B } },
    vsphereVolume: { fields: { volumePath: S, fsType: S, storagePolicyName: S, storagePolicyID: S } },
    quobyte: { fields: { registry: S, volume: S, readOnly: B, user: S, group: S, tenant: S } },
    azureDisk: { fields: { diskName: S, diskURI: S, cachingMode: S, fsType: S, readOnly: B, kind: S } },
    photonPersistentDisk: { fields: { pdID: S, fsType: S } },
    portworxVolume: { fields: { volumeID: S, fsType: S, readOnly: B } },
    scaleIO: secretRefFs({
      gateway: S,
      system: S,
      sslEnabled: B,
      protectionDomain: S,
      storagePool: S,
      storageMode: S,
      volumeName: S,
    }),
    storageos: secretRefFs({ volumeName: S, volumeNamespace: S }),
  },
  { image: { fields: { reference: S, pullPolicy: S } } /* 1.31, ImageVolume */ },
);

const nodeSelectorTerm = struct<NodeSelectorTerm>({
  matchExpressions: list(struct<NodeSelectorRequirement>({ key: S, operator: S, values: strings })),
  matchFields: list(struct<NodeSelectorRequirement>({ key: S, operator: S, values: strings })),
});
const podAffinityTerm = struct<PodAffinityTerm>({
  labelSelector,
  namespaces: strings,
  topologyKey: S,
  namespaceSelector: labelSelector,
  matchLabelKeys: strings,
  mismatchLabelKeys: strings,
});
const podAffinity = {
  fields: {
    requiredDuringSchedulingIgnoredDuringExecution: list(podAffinityTerm),
    preferredDuringSchedulingIgnoredDuringExecution: list({ fields: { weight: I32, podAffinityTerm } }),
  },
} as const satisfies Schema;
const affinity = struct<Affinity>({
  nodeAffinity: {
    fields: {
      requiredDuringSchedulingIgnoredDuringExecution: { fields: { nodeSelectorTerms: list(nodeSelectorTerm) } },
      preferredDuringSchedulingIgnoredDuringExecution: list({ fields: { weight: I32, preference: nodeSelectorTerm } }),
    },
  },
  podAffinity,
  podAntiAffinity: podAffinity,
});

const podSecurityContext = struct<PodSecurityContext>(
  {
    seLinuxOptions,
    windowsOptions,
    runAsUser: I64,
    runAsGroup: I64,
    runAsNonRoot: B,
    supplementalGroups: list(I64),
    fsGroup: I64,
    sysctls: list({ fields: { name: S, value: S } }),
    fsGroupChangePolicy: S,
    seccompProfile,
    appArmorProfile,
  },
  { supplementalGroupsPolicy: S /* 1.31 */, seLinuxChangePolicy: S /* 1.32 */ },
);

const podSpec = struct<PodSpec>(
  {
    volumes: list(volume),
    initContainers: list(container),
    containers: list(container),
    ephemeralContainers: list(ephemeralContainer),
    restartPolicy: S,
    terminationGracePeriodSeconds: I64,
    activeDeadlineSeconds: I64,
    dnsPolicy: S,
    nodeSelector: map(S),
    serviceAccountName: S,
    serviceAccount: S,
    automountServiceAccountToken: B,
    nodeName: S,
    hostNetwork: B,
    hostPID: B,
    hostIPC: B,
    shareProcessNamespace: B,
    securityContext: podSecurityContext,
    imagePullSecrets: list(localRef),
    hostname: S,
    subdomain: S,
    affinity,
    schedulerName: S,
    tolerations: list(struct<Toleration>({ key: S, operator: S, value: S, effect: S, tolerationSeconds: I64 })),
    hostAliases: list({ fields: { ip: S, hostnames: strings } }),
    priorityClassName: S,
    priority: I32,
    dnsConfig: struct<PodDNSConfig>({ nameservers: strings, searches: strings, options: list({ fields: { name: S, value: S } }) }),
    readinessGates: list({ fields: { conditionType: S } }),
    runtimeClassName: S,
    enableServiceLinks: B,
    preemptionPolicy: S,
    overhead: map(Q),
    topologySpreadConstraints: list(
      struct<TopologySpreadConstraint>({
        maxSkew: I32,
        topologyKey: S,
        whenUnsatisfiable: S,
        labelSelector,
        minDomains: I32,
        nodeAffinityPolicy: S,
        nodeTaintsPolicy: S,
        matchLabelKeys: strings,
      }),
    ),
    setHostnameAsFQDN: B,
    os: { fields: { name: S } },
    hostUsers: B,
    schedulingGates: list({ fields: { name: S } }),
    // 1.31 replaced the nested `source` with these two fields (DRA); `source` is gone from the API.
    resourceClaims: list({ fields: { name: S, resourceClaimName: S, resourceClaimTemplateName: S } }),
  },
  { resources /* 1.32, PodLevelResources */, hostnameOverride: S /* 1.34 */ },
);

/** The v1 Pod. Status is decoded too, but never read from a manifest: only its being a mapping counts. */
export const POD_SCHEMA: Schema = struct<Pod>({ apiVersion: S, kind: S, metadata: objectMeta, spec: podSpec, status: "object" });
