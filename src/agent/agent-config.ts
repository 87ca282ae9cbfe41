// AgentConfig: everything `nodeagent agent` needs to run a node, as one validated object, built from
// the command's flags and a KubeletConfiguration file (--config) the way the kubelet builds its own:
// a flag given on the command line wins over the file, and the file over the default
// (cmd/kubelet/app/server.go re-applies the command line over the loaded file). Every value is parsed
// and checked here, before anything starts: a bad one is a ConfigError (exit 2) naming the flag, or
// the file, line and field, and no runtime is started, no port bound, no pod touched. All the
// mistakes found are reported at once, one a line.
//
// Each setting is one row (util/settings.ts) beside the subsystem that uses it, which also resolves
// it (src/eviction/settings.ts, src/server/settings.ts, …); this file lists the rows — the flag
// table, --help, the file's known fields and /configz are derived from AGENT_SETTINGS — and resolves
// them in one order, the order in which their mistakes are reported.
//
// Checked as the kubelet checks them: --node-labels (NodeRestriction's rules, src/api/node-labels.ts),
// --register-with-taints, IP addresses, port ranges, --node-ip (one IP or a dual-stack pair, on one
// of this host's interfaces: the kubelet finds that out at its first node status update). Checked where the kubelet is laxer, because the
// cost here is lost pods: a --pod-manifest-path that does not exist (the kubelet only logs it).
import { SYSCTL_SETTINGS, resolveAllowedUnsafeSysctls } from "../admission";
import { CGROUP_SETTINGS, resolveCgroupRoot, resolveCgroups, type CgroupSettings } from "../cm";
import { type PushPolicy, resolveCheckFrequency, resolveManifestSources, resolvePushPolicy, SOURCE_SETTINGS } from "../config";
import { resolveRuntimeSettings, RUNTIME_SETTINGS, type RuntimeSettings } from "../cri";
import { CONTAINER_LOG_SETTINGS, GC_SETTINGS, resolveGarbageCollection, type GarbageCollectionConfig } from "../gc";
import { EVICTION_SETTINGS, resolveEviction, resolveEvictionMonitoringPeriod, type EvictionSettings } from "../eviction";
import { resolveShutdown, SHUTDOWN_SETTINGS, type ShutdownConfig } from "../nodeshutdown";
import type { PlegModeSetting } from "../pleg";
import { resolvePushToken, resolveServer, resolveTls, SERVER_SETTINGS, type ServerSettings, servingExposureError } from "../server";
import {
  NODE_SETTINGS,
  realHostLookup,
  resolveMaxPods,
  resolveNodeIdentity,
  resolveNodeRegistration,
  resolveNodeStatusUpdateFrequency,
  type HostLookup,
  type NodeSettings,
} from "../nodestatus";
import { ConfigError, defaultOf, defaultsOf, type FieldType, fieldTypes, type Flags, type LogFormat, type Setting, SettingsReader } from "../util";
import {
  AGENT_OWN_SETTINGS,
  resolveClusterDNS,
  resolveLocalObjects,
  resolveRootDir,
  resolveLogFormat,
  resolvePlegMode,
  resolvePodLogsDir,
  resolveSyncFrequency,
  type PodSettings,
} from "./agent-settings";
import { CLUSTER_SETTINGS, type ClusterCertificates, type KubeApiLimits, resolveCertDir, resolveClusterAccess, resolveKubeApiLimits } from "./cluster-settings";
import { readKubeletConfigFile } from "./kubelet-config-file";

export type { ClusterCertificates, EvictionSettings, GarbageCollectionConfig, HostLookup, ShutdownConfig };
export type { ReservedResources } from "../nodestatus";
export { sumReserved } from "../nodestatus";

export interface AgentConfig {
  /** The node's name: --hostname-override, else the host's name, trimmed and lower-cased as the kubelet does. */
  nodeName: string;
  /**
   * --node-ip, parsed: [] when not given, one address or a dual-stack pair ("0.0.0.0"/"::" alone:
   * pick one of that family). The Node's addresses and the pods' hostIP are resolved from it at start
   * (src/server/node-address.ts).
   */
  nodeIPs: string[];
  /** Where the agent keeps its state, and a managed containerd its data. */
  rootDir: string;
  runtime: RuntimeSettings;
  /** Static pods: a directory (or one file) that exists. */
  manifestPath?: string;
  fileCheckFrequencyMs: number;
  /** Static pods from a URL, polled. */
  manifestUrl?: string;
  manifestUrlHeaders: Record<string, string[]>;
  httpCheckFrequencyMs: number;
  /**
   * The bearer token every endpoint but /healthz requires (the content of --push-token-file, a file
   * only its owner can read); without it pushing is off and reads are redacted and loopback-only.
   */
  pushToken?: string;
  /** --push-policy: restricted refuses pushed pods that are privileged or use the host's namespaces or paths. */
  pushPolicy: PushPolicy;
  syncFrequencyMs: number;
  /**
   * --eviction-monitoring-period: how often the eviction manager checks its thresholds and the pods'
   * emptyDir volumes against their sizeLimit (the kubelet's evictionMonitoringPeriod, a 10 s constant
   * there, with no flag or config field; nodeagent's own flag, so that tests need not wait 10 s).
   */
  evictionMonitoringPeriodMs: number;
  /**
   * --allowed-unsafe-sysctls / allowedUnsafeSysctls: the sysctls (or prefixes ending in `*`) pods may
   * set beyond the kubelet's safe set; each must be known to be namespaced (checked here).
   */
  allowedUnsafeSysctls: string[];
  /** The eviction manager's settings (src/eviction): thresholds, pressure transition, soft grace cap. */
  eviction: EvictionSettings;
  node: NodeSettings;
  /** The node's cgroups (src/cm). */
  cgroups: CgroupSettings;
  server: ServerSettings;
  pods: PodSettings;
  plegMode: PlegModeSetting;
  logFormat: LogFormat;
  /**
   * --local-objects: a directory of ConfigMap and Secret manifests that serve the configMap/secret
   * volumes and env of static and pushed pods (without it, and without --kubeconfig, pods may not use
   * API objects: the kubelet's rule).
   */
  localObjects?: string;
  /** With --kubeconfig: a node of a Kubernetes cluster. */
  cluster?: {
    kubeconfig: string;
    context?: string;
    nodeStatusUpdateFrequencyMs: number;
    /** Certificates (src/certificate; node.md §10.1). */
    certificates: ClusterCertificates;
    /** The node's API client limits (--kube-api-qps, --kube-api-burst), as given. */
    kubeApi: KubeApiLimits;
  };
  /** --cert-dir: the self-signed serving pair and the issued certificates (default <root-dir>/pki). */
  certDir: string;
  /** Garbage collection and container log rotation (src/eviction; node.md §7). */
  gc: GarbageCollectionConfig;
  /** Graceful node shutdown (src/nodeshutdown; node.md §10.2). */
  shutdown: ShutdownConfig;
  /** What the agent logs once at start: the --config fields it ignores. */
  warnings: string[];
}

/** A subsystem's rows, with where they live (for the docs page). */
export interface SettingGroup {
  title: string;
  /** The file that declares and resolves them. */
  home: string;
  rows: readonly Setting[];
}

/** Every setting of `nodeagent agent`, by subsystem, in the order --help lists them. */
export const SETTING_GROUPS: readonly SettingGroup[] = [
  { title: "Container runtime", home: "src/cri/settings.ts", rows: RUNTIME_SETTINGS },
  { title: "The agent", home: "src/agent/agent-settings.ts", rows: AGENT_OWN_SETTINGS },
  { title: "Pod sources", home: "src/config/settings.ts", rows: SOURCE_SETTINGS },
  { title: "HTTP API, authentication and authorization", home: "src/server/settings.ts", rows: SERVER_SETTINGS },
  { title: "The Node object", home: "src/server/node-settings.ts", rows: NODE_SETTINGS },
  { title: "Sysctls", home: "src/admission/settings.ts", rows: SYSCTL_SETTINGS },
  { title: "Cgroups", home: "src/cm/settings.ts", rows: CGROUP_SETTINGS },
  { title: "Eviction", home: "src/eviction/settings.ts", rows: EVICTION_SETTINGS },
  { title: "Image and container garbage collection", home: "src/eviction/gc-settings.ts", rows: GC_SETTINGS },
  { title: "Container log rotation", home: "src/eviction/gc-settings.ts", rows: CONTAINER_LOG_SETTINGS },
  { title: "Cluster node and certificates", home: "src/agent/cluster-settings.ts", rows: CLUSTER_SETTINGS },
  { title: "Graceful node shutdown", home: "src/nodeshutdown/settings.ts", rows: SHUTDOWN_SETTINGS },
];

/** Every setting of `nodeagent agent` (cmd/runtime-args.ts shares the runtime's with the other commands). */
export const AGENT_SETTINGS: readonly Setting[] = SETTING_GROUPS.flatMap((g) => g.rows);

/** The defaults of the agent's flags, the kubelet's where it has one (derived from the rows). */
export const AGENT_DEFAULTS: Readonly<Record<string, string>> = defaultsOf(AGENT_SETTINGS);

/**
 * The KubeletConfiguration fields the agent reads (top-level names, a block as one) with their
 * types, derived from the rows: the config-file reader knows these and checks them.
 */
export const KUBELET_CONFIG_TYPES: Readonly<Record<string, FieldType>> = fieldTypes(AGENT_SETTINGS);

/**
 * Each top-level field with the flag it stands for ("" for a block of several settings, or a field
 * with no flag), as before the rows; derived.
 */
export const CONFIG_FILE_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.keys(KUBELET_CONFIG_TYPES).map((field) => [field, AGENT_SETTINGS.find((r) => r.field === field)?.flag ?? ""]),
);

/** The command's flags by name (citty's parsed args: strings; other values are ignored). */
export type AgentFlags = Flags;

/**
 * The agent's configuration from its flags (citty's parsed args, defaults included or not), the names
 * of the flags given on the command line, and the text of the --config file (flags.config names it).
 * Throws ConfigError listing every mistake.
 */
export function resolveAgentConfig(
  flags: AgentFlags,
  explicitFlags: ReadonlySet<string>,
  configFileText?: string,
  host: HostLookup = realHostLookup,
): AgentConfig {
  const configPath = typeof flags.config === "string" ? flags.config : "--config";
  const file = configFileText === undefined ? undefined : readKubeletConfigFile(configPath, configFileText, KUBELET_CONFIG_TYPES);
  const s = new SettingsReader(AGENT_SETTINGS, flags, explicitFlags, file?.fields);
  for (const problem of file?.problems ?? []) s.fail(problem);

  // The order of these reads is the order in which their mistakes are listed.
  const { nodeName, nodeIPs } = resolveNodeIdentity(s, host);
  const { manifestPath, manifestUrl, manifestUrlHeaders } = resolveManifestSources(s);
  const pushToken = resolvePushToken(s);
  const pushPolicy = resolvePushPolicy(s);
  const registration = resolveNodeRegistration(s);
  const tls = resolveTls(s);
  const cgroupRoot = resolveCgroupRoot(s);
  const clusterDNS = resolveClusterDNS(s);
  const plegMode = resolvePlegMode(s);
  const logFormat = resolveLogFormat(s);
  const localObjects = resolveLocalObjects(s);
  const access = resolveClusterAccess(s, { tlsCertFile: tls.certFile, localObjects });
  const allowedUnsafeSysctls = resolveAllowedUnsafeSysctls(s);
  const nodeStatusUpdateFrequencyMs = resolveNodeStatusUpdateFrequency(s);
  const kubeApi = resolveKubeApiLimits(s);
  const rootDir = resolveRootDir(s);
  const podLogsDir = resolvePodLogsDir(s) ?? defaultOf(AGENT_SETTINGS, "pod-logs-dir");
  const certDir = resolveCertDir(s, rootDir);

  const config: AgentConfig = {
    nodeName,
    nodeIPs,
    rootDir,
    runtime: resolveRuntimeSettings(s),
    manifestPath,
    fileCheckFrequencyMs: resolveCheckFrequency(s, "file-check-frequency"),
    manifestUrl,
    manifestUrlHeaders,
    httpCheckFrequencyMs: resolveCheckFrequency(s, "http-check-frequency"),
    pushToken,
    pushPolicy,
    syncFrequencyMs: resolveSyncFrequency(s),
    evictionMonitoringPeriodMs: resolveEvictionMonitoringPeriod(s),
    allowedUnsafeSysctls,
    eviction: resolveEviction(s),
    node: { ...registration, maxPods: resolveMaxPods(s) },
    cgroups: resolveCgroups(s),
    server: resolveServer(s, tls, !!access.kubeconfig),
    pods: {
      logsDir: podLogsDir,
      cgroupRoot: cgroupRoot ?? defaultOf(AGENT_SETTINGS, "cgroup-root"),
      clusterDNS,
      clusterDomain: s.string("cluster-domain") ?? defaultOf(AGENT_SETTINGS, "cluster-domain"),
      resolvConf: s.string("resolv-conf") ?? defaultOf(AGENT_SETTINGS, "resolv-conf"),
    },
    plegMode: plegMode ?? "auto",
    logFormat: logFormat ?? "text",
    ...(localObjects ? { localObjects } : {}),
    ...(access.kubeconfig
      ? {
          cluster: {
            kubeconfig: access.kubeconfig,
            ...(access.context ? { context: access.context } : {}),
            nodeStatusUpdateFrequencyMs: nodeStatusUpdateFrequencyMs ?? 0,
            certificates: access.certificates,
            kubeApi,
          },
        }
      : {}),
    certDir,
    gc: resolveGarbageCollection(s),
    shutdown: resolveShutdown(s),
    warnings: [...(file?.warning ? [file.warning] : []), ...s.warnings],
  };
  const exposed = servingExposureError(config.server.address, config.server.insecureHttp);
  if (exposed) s.fail(exposed);
  if (config.server.insecureHttp && config.server.tls) s.fail("--insecure-http serves plain HTTP: drop it, or drop --tls-cert-file and --tls-private-key-file");
  if (s.errors.length === 1) throw new ConfigError(s.errors[0]!);
  if (s.errors.length > 1) throw new ConfigError(`${s.errors.length} problems:\n  ${s.errors.join("\n  ")}`);
  return config;
}
