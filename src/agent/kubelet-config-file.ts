// Reading the kubelet's --config file, a KubeletConfiguration (kubelet.config.k8s.io/v1beta1), as a
// kubeadm node has it at /var/lib/kubelet/config.yaml: a full object, with every field kubeadm knows
// written out, most at their zero value ("0s", 0, {}), which v1beta1 defaulting turns into the
// kubelet's defaults (pkg/kubelet/apis/config/v1beta1/defaults.go: `if obj.SyncFrequency == 0 …`).
//
// What comes out is the fields nodeagent implements that are set (not at their zero value), each with
// its value, its YAML node and its line, for agent-config.ts to check and use; and the set fields it
// does not implement, for one warning at start. Decoding follows the kubelet's: YAML 1.1, one
// document, apiVersion and kind checked. Unknown fields are where we are stricter than the kubelet
// (which warns and decodes leniently): a name that is not a v1beta1 field but is one edit away from a
// field we use (staticPodPaht) is an error, because running without the field as meant (no static
// pods) is exactly what loses pods; other unknown names are warned about with the rest.
import { isMap, isScalar, LineCounter, parseDocument, type Node } from "yaml";
import { ConfigError } from "../util/errors";
import { closest } from "../util/suggest";

export const KUBELET_CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1";

/**
 * Every field of KubeletConfiguration v1beta1 (k8s.io/kubelet/config/v1beta1/types.go, Kubernetes
 * 1.35), so that a field of a newer or older kubeadm is known for what it is.
 */
export const KUBELET_CONFIG_FIELDS: readonly string[] = [
  "enableServer", "staticPodPath", "podLogsDir", "syncFrequency", "fileCheckFrequency", "httpCheckFrequency", "staticPodURL",
  "staticPodURLHeader", "address", "port", "readOnlyPort", "tlsCertFile", "tlsPrivateKeyFile", "tlsCipherSuites", "tlsCurvePreferences",
  "tlsMinVersion", "rotateCertificates", "serverTLSBootstrap", "authentication", "authorization", "registryPullQPS", "registryBurst",
  "imagePullCredentialsVerificationPolicy", "preloadedImagesVerificationAllowlist", "eventRecordQPS", "eventBurst",
  "enableDebuggingHandlers", "enableContentionProfiling", "healthzPort", "healthzBindAddress", "oomScoreAdj", "clusterDomain",
  "clusterDNS", "streamingConnectionIdleTimeout", "nodeStatusUpdateFrequency", "nodeStatusReportFrequency", "nodeLeaseDurationSeconds",
  "imageMinimumGCAge", "imageMaximumGCAge", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "volumeStatsAggPeriod",
  "kubeletCgroups", "systemCgroups", "cgroupRoot", "cgroupsPerQOS", "cgroupDriver", "cpuManagerPolicy", "singleProcessOOMKill",
  "cpuManagerPolicyOptions", "cpuManagerReconcilePeriod", "draManagerReconcilePeriod", "memoryManagerPolicy", "topologyManagerPolicy",
  "topologyManagerScope", "topologyManagerPolicyOptions", "qosReserved", "runtimeRequestTimeout", "hairpinMode", "maxPods", "podCIDR",
  "podPidsLimit", "resolvConf", "runOnce", "cpuCFSQuota", "cpuCFSQuotaPeriod", "nodeStatusMaxImages", "maxOpenFiles", "contentType",
  "kubeAPIQPS", "kubeAPIBurst", "serializeImagePulls", "maxParallelImagePulls", "evictionHard", "evictionSoft", "evictionSoftGracePeriod",
  "evictionPressureTransitionPeriod", "evictionMaxPodGracePeriod", "evictionMinimumReclaim", "mergeDefaultEvictionSettings",
  "podsPerCore", "enableControllerAttachDetach", "protectKernelDefaults", "makeIPTablesUtilChains", "iptablesMasqueradeBit",
  "iptablesDropBit", "featureGates", "failSwapOn", "memorySwap", "containerLogMaxSize", "containerLogMaxFiles", "containerLogMaxWorkers",
  "containerLogMonitorInterval", "configMapAndSecretChangeDetectionStrategy", "systemReserved", "kubeReserved", "reservedSystemCPUs",
  "showHiddenMetricsForVersion", "systemReservedCgroup", "kubeReservedCgroup", "enforceNodeAllocatable", "allowedUnsafeSysctls",
  "volumePluginDir", "providerID", "kernelMemcgNotification", "logging", "enableSystemLogHandler", "enableSystemLogQuery",
  "shutdownGracePeriod", "shutdownGracePeriodCriticalPods", "shutdownGracePeriodByPodPriority", "crashLoopBackOff", "reservedMemory",
  "enableProfilingHandler", "enableDebugFlagsHandler", "seccompDefault", "memoryThrottlingFactor", "memoryReservationPolicy",
  "registerWithTaints", "registerNode", "tracing", "localStorageCapacityIsolation", "containerRuntimeEndpoint", "imageServiceEndpoint",
  "failCgroupV1", "userNamespaces",
];

/**
 * Fields whose zero value is not their default: v1beta1 has them as a pointer or a list whose nil
 * differs from empty (`cgroupsPerQOS: false` turns the QoS cgroups off; `enforceNodeAllocatable: []`
 * enforces nothing, where leaving it out enforces "pods"). Given, they are kept even at zero.
 */
const EXPLICIT_ZERO_FIELDS: ReadonlySet<string> = new Set(["cgroupsPerQOS", "enforceNodeAllocatable"]);

export interface ConfigField {
  name: string;
  /** The value as YAML 1.1 reads it (a string, number, boolean, list or mapping). */
  value: unknown;
  /** The field's value node, to locate what is inside it. */
  node: Node | null;
  /** Where the field is written: "<path>:<line>:<column>". */
  at: string;
}

export interface KubeletConfigFile {
  path: string;
  /** The implemented fields that are set (not at their zero value), in file order. */
  fields: Map<string, ConfigField>;
  /** The warning the agent logs at start, naming every set field it does not act on; undefined when every set field is used. */
  warning?: string;
  /** "<path>:<line>:<column>" of a node of this file. */
  locate(node: Node | null | undefined): string;
}

/**
 * A v1beta1 field at its zero value means "the default" (what a Go struct with the field omitted
 * decodes to): 0, "", "0s", false, null, and lists and mappings that hold nothing else.
 */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === 0 || v === "" || v === false || v === "0" || v === "0s") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.values(v as Record<string, unknown>).every(isZeroValue);
  return false;
}

/**
 * Decodes a KubeletConfiguration. `implemented` names the fields the caller uses (v1beta1 names, and
 * any of nodeagent's own). Throws ConfigError with file:line:column for what cannot be used.
 */
export function readKubeletConfigFile(path: string, text: string, implemented: readonly string[]): KubeletConfigFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { version: "1.1", lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const locate = (node: Node | null | undefined): string => {
    const p = lines.linePos(node?.range?.[0] ?? 0);
    return `${path}:${p.line}:${p.col}`;
  };
  const firstError = doc.errors[0];
  if (firstError) {
    const p = lines.linePos(firstError.pos[0]);
    throw new ConfigError(`${path}:${p.line}:${p.col}: not valid YAML: ${firstError.message.split("\n")[0]}`);
  }
  const root = doc.contents;
  if (!isMap(root)) throw new ConfigError(`${path}: not a KubeletConfiguration (${KUBELET_CONFIG_API_VERSION}): expected a mapping of fields`);

  const js = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  const fields = new Map<string, ConfigField>();
  const ignored: string[] = [];
  const unknown: string[] = [];
  const known = new Set(KUBELET_CONFIG_FIELDS);
  for (const pair of root.items) {
    const keyNode = pair.key as Node | null;
    const name = isScalar(keyNode) ? String(keyNode.value) : "";
    const valueNode = pair.value as Node | null;
    const value: unknown = js[name] ?? null;
    const at = locate(keyNode);
    if (name === "apiVersion" || name === "kind") {
      const want = name === "kind" ? "KubeletConfiguration" : KUBELET_CONFIG_API_VERSION;
      if (value !== want) throw new ConfigError(`${at}: ${name} is ${JSON.stringify(value)}; a kubelet configuration file has ${name}: ${want}`);
      continue;
    }
    if (implemented.includes(name)) {
      if (!isZeroValue(value) || (EXPLICIT_ZERO_FIELDS.has(name) && value !== null)) fields.set(name, { name, value, node: valueNode, at });
      continue;
    }
    if (!known.has(name)) {
      const near = closest(name, implemented);
      if (near) throw new ConfigError(`${at}: unknown field ${JSON.stringify(name)}; did you mean ${near}?`);
      unknown.push(name);
      continue;
    }
    if (!isZeroValue(value)) ignored.push(name);
  }
  const parts: string[] = [];
  if (ignored.length) parts.push(`ignoring the fields nodeagent does not implement: ${ignored.join(", ")}`);
  if (unknown.length) parts.push(`ignoring fields that KubeletConfiguration ${KUBELET_CONFIG_API_VERSION} does not have: ${unknown.join(", ")}`);
  return { path, fields, locate, ...(parts.length ? { warning: `${path}: ${parts.join("; ")}` } : {}) };
}
