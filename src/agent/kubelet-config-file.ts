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
//
// The file is read bounded (readKubeletConfigText): a regular file of at most 1 MiB, so that
// --config /dev/zero, a FIFO or a huge file is a usage error at once rather than an agent that grows
// or hangs; YAML aliases are expanded at most 100 times (an alias bomb is refused); every field
// nodeagent reads is type-checked, nested blocks included (the rows' types, util/field-types.ts), whether or not a
// flag overrides it.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import { closest, ConfigError, errorMessage, fieldPath, type FieldType, isZeroValue, typeProblems } from "../util";

export { isZeroValue };

/** The largest --config file read: kubeadm's is about 1 KiB. */
export const MAX_CONFIG_FILE_BYTES = 1 << 20;

/** What an fstat says a non-regular file is, for the message. */
function fileKind(st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/**
 * The text of the --config file, read bounded: opened without blocking (a FIFO with no writer does
 * not hang the open), checked with fstat on the open descriptor to be a regular file of at most
 * MAX_CONFIG_FILE_BYTES, and read up to one byte more than that (a file that grew meanwhile is
 * refused, not read to its end). Throws ConfigError naming the flag and the path.
 */
export function readKubeletConfigText(path: string, maxBytes = MAX_CONFIG_FILE_BYTES): string {
  const fail = (why: string): never => {
    throw new ConfigError(`--config ${path}: ${why}`);
  };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return fail(errorMessage(e));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) fail(`${fileKind(st)}, not a regular file: give a KubeletConfiguration file`);
    if (st.size > maxBytes) fail(`${st.size} bytes, more than the ${maxBytes} a configuration file may have`);
    const buf = Buffer.alloc(maxBytes + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > maxBytes) fail(`more than the ${maxBytes} bytes a configuration file may have`);
    }
    return buf.subarray(0, n).toString("utf8");
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    return fail(errorMessage(e));
  } finally {
    closeSync(fd);
  }
}

export const KUBELET_CONFIG_API_VERSION = "kubelet.config.k8s.io/v1beta1";

/**
 * Every field of KubeletConfiguration v1beta1 (k8s.io/kubelet/config/v1beta1/types.go, Kubernetes
 * 1.35), so that a field of a newer or older kubeadm is known for what it is.
 */
export const KUBELET_CONFIG_FIELDS: readonly string[] = [
  "enableServer",
  "staticPodPath",
  "podLogsDir",
  "syncFrequency",
  "fileCheckFrequency",
  "httpCheckFrequency",
  "staticPodURL",
  "staticPodURLHeader",
  "address",
  "port",
  "readOnlyPort",
  "tlsCertFile",
  "tlsPrivateKeyFile",
  "tlsCipherSuites",
  "tlsCurvePreferences",
  "tlsMinVersion",
  "rotateCertificates",
  "serverTLSBootstrap",
  "authentication",
  "authorization",
  "registryPullQPS",
  "registryBurst",
  "imagePullCredentialsVerificationPolicy",
  "preloadedImagesVerificationAllowlist",
  "eventRecordQPS",
  "eventBurst",
  "enableDebuggingHandlers",
  "enableContentionProfiling",
  "healthzPort",
  "healthzBindAddress",
  "oomScoreAdj",
  "clusterDomain",
  "clusterDNS",
  "streamingConnectionIdleTimeout",
  "nodeStatusUpdateFrequency",
  "nodeStatusReportFrequency",
  "nodeLeaseDurationSeconds",
  "imageMinimumGCAge",
  "imageMaximumGCAge",
  "imageGCHighThresholdPercent",
  "imageGCLowThresholdPercent",
  "volumeStatsAggPeriod",
  "kubeletCgroups",
  "systemCgroups",
  "cgroupRoot",
  "cgroupsPerQOS",
  "cgroupDriver",
  "cpuManagerPolicy",
  "singleProcessOOMKill",
  "cpuManagerPolicyOptions",
  "cpuManagerReconcilePeriod",
  "draManagerReconcilePeriod",
  "memoryManagerPolicy",
  "topologyManagerPolicy",
  "topologyManagerScope",
  "topologyManagerPolicyOptions",
  "qosReserved",
  "runtimeRequestTimeout",
  "hairpinMode",
  "maxPods",
  "podCIDR",
  "podPidsLimit",
  "resolvConf",
  "runOnce",
  "cpuCFSQuota",
  "cpuCFSQuotaPeriod",
  "nodeStatusMaxImages",
  "maxOpenFiles",
  "contentType",
  "kubeAPIQPS",
  "kubeAPIBurst",
  "serializeImagePulls",
  "maxParallelImagePulls",
  "evictionHard",
  "evictionSoft",
  "evictionSoftGracePeriod",
  "evictionPressureTransitionPeriod",
  "evictionMaxPodGracePeriod",
  "evictionMinimumReclaim",
  "mergeDefaultEvictionSettings",
  "podsPerCore",
  "enableControllerAttachDetach",
  "protectKernelDefaults",
  "makeIPTablesUtilChains",
  "iptablesMasqueradeBit",
  "iptablesDropBit",
  "featureGates",
  "failSwapOn",
  "memorySwap",
  "containerLogMaxSize",
  "containerLogMaxFiles",
  "containerLogMaxWorkers",
  "containerLogMonitorInterval",
  "configMapAndSecretChangeDetectionStrategy",
  "systemReserved",
  "kubeReserved",
  "reservedSystemCPUs",
  "showHiddenMetricsForVersion",
  "systemReservedCgroup",
  "kubeReservedCgroup",
  "enforceNodeAllocatable",
  "allowedUnsafeSysctls",
  "volumePluginDir",
  "providerID",
  "kernelMemcgNotification",
  "logging",
  "enableSystemLogHandler",
  "enableSystemLogQuery",
  "shutdownGracePeriod",
  "shutdownGracePeriodCriticalPods",
  "shutdownGracePeriodByPodPriority",
  "crashLoopBackOff",
  "reservedMemory",
  "enableProfilingHandler",
  "enableDebugFlagsHandler",
  "seccompDefault",
  "memoryThrottlingFactor",
  "memoryReservationPolicy",
  "registerWithTaints",
  "registerNode",
  "tracing",
  "localStorageCapacityIsolation",
  "containerRuntimeEndpoint",
  "imageServiceEndpoint",
  "failCgroupV1",
  "userNamespaces",
];

/**
 * Fields whose zero value is not their default: v1beta1 has them as a pointer or a list whose nil
 * differs from empty (`cgroupsPerQOS: false` turns the QoS cgroups off; `enforceNodeAllocatable: []`
 * enforces nothing, where leaving it out enforces "pods"; `kubeAPIQPS: 0` is client-go's default qps,
 * not the kubelet's 50). Given, they are kept even at zero.
 */
const EXPLICIT_ZERO_FIELDS: ReadonlySet<string> = new Set(["cgroupsPerQOS", "enforceNodeAllocatable", "kubeAPIQPS"]);

/**
 * Folders the agent deletes in (issue 24): an explicit empty value is kept, to be refused, rather
 * than meaning the default as v1beta1's zero value does; leave the field out for the default.
 */
const EMPTY_IS_AN_ERROR_FIELDS: ReadonlySet<string> = new Set(["podLogsDir"]);

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
  /**
   * The fields of the wrong type, one message each ("<path>:<line>:<column>: authentication.x509:
   * expected a mapping, got 5"); such a field is not in `fields`.
   */
  problems: string[];
}

/**
 * Decodes a KubeletConfiguration. `types` has the fields the caller uses (v1beta1 names, and
 * any of nodeagent's own). Throws ConfigError with file:line:column for what cannot be used.
 */
export function readKubeletConfigFile(path: string, text: string, types: Readonly<Record<string, FieldType>>): KubeletConfigFile {
  const implemented = Object.keys(types);
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

  let js: Record<string, unknown>;
  try {
    js = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (e) {
    // An alias bomb ("Excessive alias count indicates a resource exhaustion attack"), or an alias to nothing.
    throw new ConfigError(`${path}: not a usable KubeletConfiguration: ${errorMessage(e)}`);
  }
  const fields = new Map<string, ConfigField>();
  const problems: string[] = [];
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
      const type = types[name];
      const found = type ? typeProblems(type, value) : [];
      for (const p of found) {
        const where = p.path.length ? locate(keyNodeAt(valueNode, p.path) ?? keyNode) : at;
        if (p.unknown) unknown.push(fieldPath(name, p.path));
        else problems.push(`${where}: ${fieldPath(name, p.path)}: ${p.message}`);
      }
      if (found.some((p) => !p.unknown)) continue;
      const keep = (EXPLICIT_ZERO_FIELDS.has(name) && value !== null) || (EMPTY_IS_AN_ERROR_FIELDS.has(name) && value === "");
      if (!isZeroValue(value) || keep) fields.set(name, { name, value, node: valueNode, at });
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
  return { path, fields, locate, problems, ...(parts.length ? { warning: `${path}: ${parts.join("; ")}` } : {}) };
}

/**
 * The node naming `path` below a field's value node: a mapping's key, a list's item; undefined when
 * the way goes through an alias (the caller then points at the field).
 */
function keyNodeAt(node: Node | null, path: ReadonlyArray<string | number>): Node | undefined {
  let cur: unknown = node;
  let at: Node | undefined;
  for (const step of path) {
    if (isMap(cur)) {
      const pair = cur.items.find((p) => isScalar(p.key) && String(p.key.value) === String(step));
      if (!pair) return undefined;
      at = pair.key as Node;
      cur = pair.value;
    } else if (isSeq(cur) && typeof step === "number") {
      cur = cur.items[step];
      at = cur as Node;
    } else {
      return undefined;
    }
  }
  return at;
}
