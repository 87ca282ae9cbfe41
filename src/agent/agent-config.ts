// AgentConfig: everything `nodeagent agent` needs to run a node, as one validated object, built from
// the command's flags and a KubeletConfiguration file (--config) the way the kubelet builds its own:
// a flag given on the command line wins over the file, and the file over the default
// (cmd/kubelet/app/server.go re-applies the command line over the loaded file). Every value is parsed
// and checked here, before anything starts: a bad one is a ConfigError (exit 2) naming the flag, or
// the file, line and field, and no runtime is started, no port bound, no pod touched. All the
// mistakes found are reported at once, one a line.
//
// Checked as the kubelet checks them: --node-labels (NodeRestriction's rules, src/api/node-labels.ts),
// --register-with-taints, IP addresses, port ranges, --node-ip (one IP or a dual-stack pair, on one
// of this host's interfaces: the kubelet finds that out at its first node status update). Checked where the kubelet is laxer, because the
// cost here is lost pods: a --pod-manifest-path that does not exist (the kubelet only logs it).
import { existsSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Taint } from "kubernetes-types/core/v1";
import { SysctlAllowlist } from "../admission/sysctls";
import { forbiddenNodeLabelsError } from "../api/node-labels";
import { parseQuantity } from "../api/quantity";
import { isDNS1123Subdomain } from "../api/validation";
import type { PlegModeSetting } from "../pleg/pleg";
import { PUSH_POLICIES, type PushPolicy } from "../config/push-policy";
import { servingExposureError } from "../server/auth";
import { nodeIPProblem, parseNodeIPs, realHostNetwork, type HostNetwork } from "../nodestatus";
import { AUTHORIZATION_MODES, type AuthorizationMode } from "../server/authz";
import { parseLabels, parseTaint } from "../nodestatus";
import { isUnspecifiedIP, parseIP } from "../util/ip";
import { readTokenFile } from "../server/token-file";
import { parseDuration } from "../util/duration";
import { ConfigError, errorMessage } from "../util/errors";
import type { LogFormat } from "../util/log";
import { CGROUP_DRIVERS, cgroupPathProblem, ENFORCEMENT_KEYS, type CgroupDriver, type EnforcementKey } from "../cm";
import { ownedFolderProblem } from "../util/system-folders";
import { DEFAULT_EVICTION_HARD, parseEqualsMap, parseLangleMap, parseThresholds, ThresholdEntryError, ThresholdError, type Threshold, type ThresholdSetting } from "../eviction/thresholds";
import { isZeroValue, readKubeletConfigFile, type ConfigField, type KubeletConfigFile } from "./kubelet-config-file";
import type { ContainerGCPolicy } from "../gc";
import type { ContainerLogPolicy } from "../logs";
import type { ImageGCPolicy } from "../gc";
import { migrateGracePeriods, type ShutdownGracePeriodByPodPriority } from "../nodeshutdown/grace-periods";

/** Resources kept off the node's allocatable (--kube-reserved plus --system-reserved), as quantities. */
export interface ReservedResources {
  cpu?: string;
  memory?: string;
  ephemeralStorage?: string;
}

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
  runtime: {
    /** The CRI socket; without one, a standard socket or a containerd started under rootDir. */
    endpoint?: string;
    podInfraImage: string;
    requestTimeoutMs: number;
  };
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
  node: {
    labels: Record<string, string>;
    taints: Taint[];
    maxPods: number;
    reserved: ReservedResources;
    /** --kube-reserved and --system-reserved each on its own (reserved is their sum), for the cgroups they cap. */
    kubeReserved: ReservedResources;
    systemReserved: ReservedResources;
  };
  /** The node's cgroups (src/cm). */
  cgroups: {
    /** --cgroup-driver: how cgroup names are spelled (and, on the runtime's side, who makes them). */
    driver: CgroupDriver;
    /** --cgroups-per-qos: the kubepods / QoS / pod<uid> hierarchy; false: <cgroup-root>/pod<uid>. */
    perQOS: boolean;
    /** --enforce-node-allocatable, without "none". */
    enforceNodeAllocatable: EnforcementKey[];
    systemReservedCgroup?: string;
    kubeReservedCgroup?: string;
  };
  server: {
    address: string;
    /** 0: any free port. */
    port: number;
    /** --tls-cert-file and --tls-private-key-file; without them (and without insecureHttp) a self-signed pair under <root-dir>/pki. */
    tls?: { certFile: string; keyFile: string };
    /** --insecure-http: plain HTTP, loopback only. */
    insecureHttp: boolean;
    /** --anonymous-read-only: callers without credentials may read the redacted view. */
    anonymousReadOnly: boolean;
    /** The kubelet's authentication settings (flags, else the file's `authentication` block). */
    authentication: {
      /** --client-ca-file / x509.clientCAFile: client certificates signed by it authenticate as CN, groups O. */
      clientCAFile?: string;
      /** --anonymous-auth / anonymous.enabled (default false). */
      anonymous: boolean;
      /** --authentication-token-webhook / webhook.enabled (default: on with --kubeconfig); cacheTTL 2m. */
      webhook: { enabled: boolean; cacheTTLMs: number };
    };
    /** --authorization-mode / authorization.mode: Webhook by default with --kubeconfig, else only the push token. */
    authorization: {
      mode: AuthorizationMode;
      webhook: { cacheAuthorizedTTLMs: number; cacheUnauthorizedTTLMs: number };
    };
  };
  pods: {
    logsDir: string;
    cgroupRoot: string;
    clusterDNS: string[];
    clusterDomain: string;
    resolvConf: string;
  };
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

/** The kubelet's certificate settings (issue 18). */
export interface ClusterCertificates {
  /** --bootstrap-kubeconfig: get a client certificate with these credentials when --kubeconfig has none usable. */
  bootstrapKubeconfig?: string;
  /** --rotate-certificates / rotateCertificates: renew the client certificate before it expires. */
  rotateCertificates: boolean;
  /** --rotate-server-certificates / serverTLSBootstrap: request (and renew) the serving certificate from the cluster. */
  serverTLSBootstrap: boolean;
}

/**
 * shutdownGracePeriod and shutdownGracePeriodCriticalPods (KubeletConfiguration fields only in the
 * kubelet; --shutdown-grace-period and --shutdown-grace-period-critical-pods are nodeagent's own flags
 * for them) or shutdownGracePeriodByPodPriority (file only), and --shutdown-pods (nodeagent's own).
 */
export interface ShutdownConfig {
  /** The priority groups and their budgets (the two migrated ones, or the file's list); empty: off. */
  periods: ShutdownGracePeriodByPodPriority[];
  /** shutdownGracePeriod and shutdownGracePeriodCriticalPods as given (0 with the by-priority list), for /configz. */
  gracePeriodMs: number;
  criticalPodsMs: number;
  /** The file gave shutdownGracePeriodByPodPriority (periods is its list). */
  byPodPriority: boolean;
  /** --shutdown-pods: SIGTERM stops every pod within the budgets before the agent exits. */
  shutdownPods: boolean;
}

/**
 * --eviction-hard, --eviction-soft (with --eviction-soft-grace-period), --eviction-minimum-reclaim as
 * thresholds; --eviction-pressure-transition-period; --eviction-max-pod-grace-period.
 */
export interface EvictionSettings {
  thresholds: Threshold[];
  /** The four maps as given (or defaulted), for /configz. */
  maps: Partial<Record<ThresholdSetting, Record<string, string>>>;
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
}

/** The kubelet's image GC, container GC and log rotation settings, and nodeagent's periods for tests. */
export interface GarbageCollectionConfig {
  image: ImageGCPolicy;
  /** --image-gc-period (nodeagent's own): the kubelet's ImageGCPeriod, a 5 min constant there. */
  imagePeriodMs: number;
  container: ContainerGCPolicy;
  /** --container-gc-period (nodeagent's own): the kubelet's ContainerGCPeriod, a 1 min constant there. */
  containerPeriodMs: number;
  containerLogs: ContainerLogPolicy;
}

/** The defaults of the agent's flags, the kubelet's where it has one; cmd/agent.ts shows them in --help. */
export const AGENT_DEFAULTS = {
  "root-dir": "/var/lib/nodeagent",
  "pod-infra-container-image": "localhost/nodeagent/pause:1.0",
  "runtime-request-timeout": "2m",
  "file-check-frequency": "20s",
  "http-check-frequency": "20s",
  "sync-frequency": "1m",
  "max-pods": "110",
  address: "127.0.0.1",
  port: "10250",
  "cluster-domain": "cluster.local",
  "resolv-conf": "/etc/resolv.conf",
  "pod-logs-dir": "/var/log/pods",
  "cgroup-root": "/nodeagent",
  "cgroup-driver": "cgroupfs",
  "cgroups-per-qos": "true",
  "enforce-node-allocatable": "pods",
  "pleg-mode": "auto",
  "log-format": "text",
  "node-status-update-frequency": "10s",
  "eviction-monitoring-period": "10s",
  "eviction-hard": DEFAULT_EVICTION_HARD,
  "eviction-pressure-transition-period": "5m",
  "eviction-max-pod-grace-period": "0",
  "image-gc-high-threshold": "85",
  "image-gc-low-threshold": "80",
  "minimum-image-ttl-duration": "2m",
  "image-gc-period": "5m",
  "minimum-container-ttl-duration": "0s",
  "maximum-dead-containers-per-container": "1",
  "maximum-dead-containers": "-1",
  "container-gc-period": "1m",
  "container-log-max-size": "10Mi",
  "container-log-max-files": "5",
  "authentication-token-webhook-cache-ttl": "2m",
  "authorization-webhook-cache-authorized-ttl": "5m",
  "authorization-webhook-cache-unauthorized-ttl": "30s",
  "shutdown-grace-period": "0s",
  "shutdown-grace-period-critical-pods": "0s",
} as const satisfies Record<string, string>;

/**
 * The KubeletConfiguration fields the agent uses, with the flag each stands for. All are v1beta1
 * fields but podInfraContainerImage, nodeagent's own (a kubelet flag, never a config field).
 */
export const CONFIG_FILE_FIELDS: Readonly<Record<string, string>> = {
  staticPodPath: "pod-manifest-path",
  staticPodURL: "manifest-url",
  staticPodURLHeader: "manifest-url-header",
  fileCheckFrequency: "file-check-frequency",
  httpCheckFrequency: "http-check-frequency",
  syncFrequency: "sync-frequency",
  address: "address",
  port: "port",
  tlsCertFile: "tls-cert-file",
  tlsPrivateKeyFile: "tls-private-key-file",
  rotateCertificates: "rotate-certificates",
  serverTLSBootstrap: "rotate-server-certificates",
  containerRuntimeEndpoint: "runtime-endpoint",
  runtimeRequestTimeout: "runtime-request-timeout",
  maxPods: "max-pods",
  podLogsDir: "pod-logs-dir",
  cgroupRoot: "cgroup-root",
  cgroupDriver: "cgroup-driver",
  cgroupsPerQOS: "cgroups-per-qos",
  enforceNodeAllocatable: "enforce-node-allocatable",
  systemReservedCgroup: "system-reserved-cgroup",
  kubeReservedCgroup: "kube-reserved-cgroup",
  podInfraContainerImage: "pod-infra-container-image",
  clusterDNS: "cluster-dns",
  clusterDomain: "cluster-domain",
  resolvConf: "resolv-conf",
  nodeStatusUpdateFrequency: "node-status-update-frequency",
  kubeReserved: "kube-reserved",
  systemReserved: "system-reserved",
  registerWithTaints: "register-with-taints",
  allowedUnsafeSysctls: "allowed-unsafe-sysctls",
  evictionHard: "eviction-hard",
  evictionSoft: "eviction-soft",
  evictionSoftGracePeriod: "eviction-soft-grace-period",
  evictionMinimumReclaim: "eviction-minimum-reclaim",
  evictionPressureTransitionPeriod: "eviction-pressure-transition-period",
  evictionMaxPodGracePeriod: "eviction-max-pod-grace-period",
  imageGCHighThresholdPercent: "image-gc-high-threshold",
  imageGCLowThresholdPercent: "image-gc-low-threshold",
  imageMinimumGCAge: "minimum-image-ttl-duration",
  containerLogMaxSize: "container-log-max-size",
  containerLogMaxFiles: "container-log-max-files",
  shutdownGracePeriod: "shutdown-grace-period",
  shutdownGracePeriodCriticalPods: "shutdown-grace-period-critical-pods",
  // Blocks of several settings, read field by field in resolveApiAuth.
  authentication: "",
  authorization: "",
  shutdownGracePeriodByPodPriority: "",
};

const FIELD_OF_FLAG = new Map(Object.entries(CONFIG_FILE_FIELDS).map(([field, flag]) => [flag, field]));

/** The command's flags by name (citty's parsed args: strings; other values are ignored). */
export type AgentFlags = Readonly<Record<string, unknown>>;

/** What the host says when a flag does not: its name, and its interfaces (a --node-ip must be one of theirs). Injected by tests. */
export interface HostFacts {
  hostname(): string;
  network: Pick<HostNetwork, "interfaces">;
}

const realHost: HostFacts = { hostname, network: realHostNetwork };

/** A value that fails its check: the message says what was expected; the caller adds where. */
class Invalid extends Error {}

const describe = (v: unknown): string => (Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "a mapping" : typeof v === "string" ? `the string ${JSON.stringify(v)}` : String(v));

/** A duration's text in ms, any sign; one that does not parse is Invalid. */
function durationText(text: string): number {
  try {
    return parseDuration(text);
  } catch (e) {
    throw new Invalid(errorMessage(e));
  }
}

function positiveDuration(text: string): number {
  const ms = durationText(text);
  if (ms <= 0) throw new Invalid("must be longer than 0");
  return ms;
}

function wholeNumber(text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) throw new Invalid(`expected a whole number from ${min} to ${max}`);
  return Number(text);
}

function ipAddress(text: string): string {
  if (isIP(text.trim()) === 0) throw new Invalid("not an IP address");
  return text.trim();
}

/** --node-ip: parseNodeIPs, then each given address must be this host's (kubelet validateNodeIP, loopback allowed). */
function nodeIPsFlag(text: string, network: Pick<HostNetwork, "interfaces">): string[] {
  let ips: string[];
  try {
    ips = parseNodeIPs(text);
  } catch (e) {
    throw new Invalid(errorMessage(e));
  }
  for (const ip of ips) {
    const parsed = parseIP(ip)!;
    if (isUnspecifiedIP(parsed)) continue;
    const problem = nodeIPProblem(parsed, network, true);
    if (problem) throw new Invalid(problem);
  }
  return ips;
}

/**
 * A folder the agent owns and deletes in (--root-dir, --pod-logs-dir, --cert-dir): absolute, not
 * empty, not / or a system folder of the host (src/util/system-folders.ts).
 */
const ownedFolder = (example: string) => (path: string): string => {
  const problem = ownedFolderProblem(path, example);
  if (problem) throw new Invalid(problem);
  return path;
};

/** --cgroup-root and the reserved cgroups: a clean absolute cgroup path (src/cm/cgroup-name.ts). */
function cgroupPath(path: string): string {
  const problem = cgroupPathProblem(path);
  if (problem) throw new Invalid(problem);
  return path;
}

function mustExist(path: string): string {
  if (!existsSync(path)) throw new Invalid("no such file or directory");
  return path;
}

function mustBeDirectory(path: string): string {
  mustExist(path);
  if (!statSync(path).isDirectory()) throw new Invalid("not a directory");
  return path;
}

/**
 * --kube-reserved and --system-reserved ("cpu=500m,memory=1Gi"; kubeReserved {cpu: 500m}), summed as
 * the kubelet sums them into the node allocatable reservation.
 */
export function sumReserved(entries: Iterable<[string, string]>): ReservedResources {
  let milliCPU = 0;
  let memory = 0;
  let storage = 0;
  for (const [name, value] of entries) {
    let q;
    try {
      q = parseQuantity(value);
    } catch (e) {
      throw new Invalid(`${name}=${value}: ${errorMessage(e)}`);
    }
    if (name === "cpu") milliCPU += q.milli();
    else if (name === "memory") memory += q.value();
    else if (name === "ephemeral-storage") storage += q.value();
    else throw new Invalid(`${JSON.stringify(name)}: only cpu, memory and ephemeral-storage can be reserved`);
  }
  return { ...(milliCPU ? { cpu: `${milliCPU}m` } : {}), ...(memory ? { memory: String(memory) } : {}), ...(storage ? { ephemeralStorage: String(storage) } : {}) };
}

function reservedFlag(text: string): Array<[string, string]> {
  return text.split(",").map((x) => x.trim()).filter(Boolean).map((item) => {
    const eq = item.indexOf("=");
    if (eq <= 0 || eq === item.length - 1) throw new Invalid(`${JSON.stringify(item)}: use name=quantity, e.g. cpu=500m`);
    return [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
  });
}

function headersFlag(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const h of text.split(",").filter((x) => x.trim())) {
    const i = h.indexOf(":");
    if (i <= 0) throw new Invalid(`${JSON.stringify(h)}: use Name:Value`);
    (out[h.slice(0, i).trim()] ??= []).push(h.slice(i + 1).trim());
  }
  return out;
}

// What each kind of v1beta1 field must hold (its Go type, as JSON would decode it).
const fileString = (v: unknown): string => {
  if (typeof v !== "string") throw new Invalid(`expected a string, got ${describe(v)}`);
  return v;
};
const fileDuration = (v: unknown): number => {
  if (typeof v !== "string") throw new Invalid(`expected a duration such as "20s", got ${describe(v)}`);
  return positiveDuration(v);
};
/** A file field holding a duration string, checked as its flag is. */
const fileDurationOf = (check: (text: string) => number, example: string) => (v: unknown): number => {
  if (typeof v !== "string") throw new Invalid(`expected a duration such as "${example}", got ${describe(v)}`);
  return check(v);
};
const fileInt = (min: number, max: number) => (v: unknown): number => {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new Invalid(`expected a whole number from ${min} to ${max}, got ${describe(v)}`);
  return v;
};
const fileStringList = (v: unknown): string[] => {
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw new Invalid(`expected a list of strings, got ${describe(v)}`);
  return v as string[];
};
const fileMap = (v: unknown): Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Invalid(`expected a mapping, got ${describe(v)}`);
  return v as Record<string, unknown>;
};

/**
 * Reads every setting from the flags given, the file, or the default, collecting the mistakes. A
 * file field at its zero value is not "given" (kubelet-config-file.ts).
 */
class Settings {
  readonly errors: string[] = [];

  constructor(
    readonly flags: AgentFlags,
    private readonly given: ReadonlySet<string>,
    private readonly file: KubeletConfigFile | undefined,
  ) {}

  isGiven(flag: string): boolean {
    return this.given.has(flag);
  }

  /** A field of the file's `block` mapping (authentication.x509.clientCAFile), with where it is written. */
  nested(block: string, path: string[]): { value: unknown; at: string } | undefined {
    const f = this.file?.fields.get(block);
    if (!f) return undefined;
    let v: unknown = f.value;
    for (const k of path) {
      if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
      v = (v as Record<string, unknown>)[k];
    }
    return v === undefined || v === null ? undefined : { value: v, at: `${f.at}: ${block}.${path.join(".")}` };
  }

  /** A field of the file by its own name (a block or list with no flag of its own). */
  field(name: string): ConfigField | undefined {
    return this.file?.fields.get(name);
  }

  /** The file's field standing for the flag, when it is set there and the flag was not given. */
  fromFile(flag: string): ConfigField | undefined {
    const field = FIELD_OF_FLAG.get(flag);
    return field && !this.given.has(flag) ? this.file?.fields.get(field) : undefined;
  }

  /** The flag's text: given, else its default (from the caller's flags or AGENT_DEFAULTS). */
  text(flag: string): string | undefined {
    const v = this.flags[flag];
    if (typeof v === "string") return v;
    // A boolean flag (--rotate-certificates, --cgroups-per-qos=false, --no-cgroups-per-qos), as pflag's.
    if (typeof v === "boolean") return String(v);
    return (AGENT_DEFAULTS as Record<string, string>)[flag];
  }

  /**
   * The setting: the flag given, else the file's field, else the flag's default. The file's field is
   * checked even when the flag overrides it (a mistake in the file is one, whatever wins).
   */
  get<T>(flag: string, parseFlag: (text: string) => T, parseFile: (v: unknown) => T): T | undefined {
    const field = FIELD_OF_FLAG.get(flag);
    const f = field ? this.file?.fields.get(field) : undefined;
    if (f) {
      try {
        const v = parseFile(f.value);
        if (!this.given.has(flag)) return v;
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        this.errors.push(`${f.at}: ${f.name}: ${e.message}`);
        if (!this.given.has(flag)) return undefined;
      }
    }
    try {
      const text = this.text(flag);
      return text === undefined ? undefined : parseFlag(text);
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      this.errors.push(`--${flag} ${JSON.stringify(this.text(flag))}: ${e.message}`);
      return undefined;
    }
  }

  /** A string setting (a path, a name): empty means unset. */
  string(flag: string, check: (s: string) => string = (s) => s): string | undefined {
    const v = this.get(flag, (t) => (t === "" ? "" : check(t)), (v) => check(fileString(v)));
    return v === "" ? undefined : v;
  }

  readonly warnings: string[] = [];

  warn(message: string): void {
    this.warnings.push(message);
  }

  fail(message: string): void {
    this.errors.push(message);
  }
}

/**
 * The agent's configuration from its flags (citty's parsed args, defaults included or not), the names
 * of the flags given on the command line, and the text of the --config file (flags.config names it).
 * Throws ConfigError listing every mistake.
 */
export function resolveAgentConfig(flags: AgentFlags, explicitFlags: ReadonlySet<string>, configFileText?: string, host: HostFacts = realHost): AgentConfig {
  const configPath = typeof flags.config === "string" ? flags.config : "--config";
  const file = configFileText === undefined ? undefined : readKubeletConfigFile(configPath, configFileText, Object.keys(CONFIG_FILE_FIELDS));
  const s = new Settings(flags, explicitFlags, file);
  for (const problem of file?.problems ?? []) s.fail(problem);

  // nodeutil.GetHostname: the override or the host's name, trimmed and lower-cased.
  const nodeName = (s.string("hostname-override") ?? host.hostname()).trim().toLowerCase();
  const nameErrors = isDNS1123Subdomain(nodeName);
  if (nameErrors.length) s.fail(`node name ${JSON.stringify(nodeName)} (--hostname-override, else the host's name): ${nameErrors.join("; ")}`);
  const nodeIPs = s.get("node-ip", (t) => nodeIPsFlag(t, host.network), () => []) ?? [];

  const manifestPath = s.string("pod-manifest-path", mustExist);
  const manifestUrl = s.string("manifest-url", (u) => {
    if (!/^https?:\/\/[^/]/.test(u)) throw new Invalid("expected an http:// or https:// URL");
    return u;
  });
  const manifestUrlHeaders =
    s.get("manifest-url-header", headersFlag, (v) => Object.fromEntries(Object.entries(fileMap(v)).map(([k, list]) => [k, fileStringList(list)]))) ?? {};

  const pushTokenFile = s.string("push-token-file", mustExist);
  let pushToken: string | undefined;
  if (pushTokenFile) {
    // The token is root on this host: a file others can read (or that someone else owns) is refused,
    // as ssh refuses such a key.
    try {
      pushToken = readTokenFile(pushTokenFile);
    } catch (e) {
      s.fail(errorMessage(e));
    }
  }
  const pushPolicy = (s.get("push-policy", (t) => oneOf(t, PUSH_POLICIES), fileString) ?? "unrestricted") as PushPolicy;
  const anonymousReadOnly = s.flags["anonymous-read-only"] === true;
  const insecureHttp = s.flags["insecure-http"] === true;

  let labels: Record<string, string> = {};
  const labelText = s.string("node-labels");
  if (labelText) {
    try {
      labels = parseLabels(labelText);
      const forbidden = forbiddenNodeLabelsError(Object.keys(labels));
      if (forbidden) s.fail(forbidden);
    } catch (e) {
      s.fail(`--node-labels: ${errorMessage(e)}`);
    }
  }
  const taintOf = (spec: string): Taint => {
    try {
      return parseTaint(spec);
    } catch (e) {
      throw new Invalid(errorMessage(e));
    }
  };
  const taints =
    s.get(
      "register-with-taints",
      (t) => (t.trim() === "" ? [] : t.split(",").map(taintOf)),
      (v) => {
        if (!Array.isArray(v)) throw new Invalid(`expected a list of taints ({key, value, effect}), got ${describe(v)}`);
        return v.map((t) => {
          const m = fileMap(t);
          return taintOf(`${fileString(m.key ?? "")}${m.value !== undefined ? `=${fileString(m.value)}` : ""}:${fileString(m.effect ?? "")}`);
        });
      },
    ) ?? [];

  const reservedEntries = (flag: string) =>
    s.get(flag, reservedFlag, (v) => Object.entries(fileMap(v)).map(([k, q]): [string, string] => [k, typeof q === "number" ? String(q) : fileString(q)])) ?? [];
  let reserved: ReservedResources = {};
  let kubeReserved: ReservedResources = {};
  let systemReserved: ReservedResources = {};
  const kubeEntries = reservedEntries("kube-reserved");
  const systemEntries = reservedEntries("system-reserved");
  try {
    reserved = sumReserved([...kubeEntries, ...systemEntries]);
    kubeReserved = sumReserved(kubeEntries);
    systemReserved = sumReserved(systemEntries);
  } catch (e) {
    s.fail(`--kube-reserved/--system-reserved: ${errorMessage(e)}`);
  }

  const tlsCert = s.string("tls-cert-file", mustExist);
  const tlsKey = s.string("tls-private-key-file", mustExist);
  if (!!tlsCert !== !!tlsKey) s.fail("--tls-cert-file and --tls-private-key-file go together: give both, or neither for a self-signed certificate under --root-dir");

  const cgroupRoot = s.get("cgroup-root", cgroupPath, (v) => cgroupPath(fileString(v)));
  const clusterDNS =
    s.get(
      "cluster-dns",
      (t) => t.split(",").map((x) => x.trim()).filter(Boolean).map(ipAddress),
      (v) => fileStringList(v).map(ipAddress),
    ) ?? [];

  const plegMode = s.get("pleg-mode", (t) => oneOf(t, ["auto", "generic", "evented"]), fileString) as PlegModeSetting | undefined;
  const logFormat = s.get("log-format", (t) => oneOf(t, ["text", "json"]), fileString) as LogFormat | undefined;

  const localObjects = s.string("local-objects", mustBeDirectory);
  // With --bootstrap-kubeconfig, --kubeconfig is where the bootstrapped kubeconfig goes: it may not exist yet.
  const bootstrapKubeconfig = s.string("bootstrap-kubeconfig", mustExist);
  const kubeconfig = s.string("kubeconfig", bootstrapKubeconfig ? (p) => p : mustExist);
  if (bootstrapKubeconfig && !kubeconfig) s.fail("--bootstrap-kubeconfig needs --kubeconfig: the path where the node's kubeconfig (pointing at the issued client certificate) is written");
  const rotateCertificates = s.get("rotate-certificates", boolFlag, fileBool) ?? false;
  const serverTLSBootstrap = s.get("rotate-server-certificates", boolFlag, fileBool) ?? false;
  // Without a cluster there is no one to ask: an error on the command line; in a file (kubeadm's sets
  // rotateCertificates: true) a warning, as the standalone kubelet ignores them.
  for (const [flag, on] of [["rotate-certificates", rotateCertificates], ["rotate-server-certificates", serverTLSBootstrap]] as const) {
    if (kubeconfig || !on) continue;
    if (s.isGiven(flag)) s.fail(`--${flag} asks the API server for certificates: give --kubeconfig (or --bootstrap-kubeconfig) too`);
    else {
      const f = s.fromFile(flag);
      s.warn(`${f ? `${f.at}: ${f.name}` : FIELD_OF_FLAG.get(flag)}: ignored without --kubeconfig (there is no API server to issue certificates)`);
    }
  }
  if (serverTLSBootstrap && tlsCert) s.fail("--rotate-server-certificates requests the serving certificate from the cluster: drop --tls-cert-file and --tls-private-key-file");
  const context = s.string("context");
  if (localObjects && kubeconfig) s.fail("--local-objects serves the static and pushed pods of a node without --kubeconfig; with --kubeconfig configMaps and secrets come from the API server: give one of the two");
  if (context && !kubeconfig) s.fail("--context chooses a context of --kubeconfig: give --kubeconfig too");
  // The kubelet refuses to start with a pattern NewAllowlist refuses (malformed, or not namespaced).
  const sysctlPatterns = (list: string[]): string[] => {
    try {
      new SysctlAllowlist(list);
    } catch (e) {
      throw new Invalid(errorMessage(e));
    }
    return list;
  };
  const allowedUnsafeSysctls =
    s.get(
      "allowed-unsafe-sysctls",
      (t) => sysctlPatterns(t.split(",").map((x) => x.trim()).filter(Boolean)),
      (v) => sysctlPatterns(fileStringList(v)),
    ) ?? [];
  const nodeStatusUpdateFrequencyMs = s.get("node-status-update-frequency", positiveDuration, fileDuration);

  // The folders the agent deletes in: an empty value is an error, not the default (issue 24).
  const rootDir = s.get("root-dir", ownedFolder("/var/lib/nodeagent"), (v) => ownedFolder("/var/lib/nodeagent")(fileString(v))) ?? AGENT_DEFAULTS["root-dir"];
  const podLogsDir = s.get("pod-logs-dir", ownedFolder("/var/log/pods"), (v) => ownedFolder("/var/log/pods")(fileString(v))) ?? AGENT_DEFAULTS["pod-logs-dir"];
  const certDir = s.get("cert-dir", ownedFolder("/var/lib/nodeagent/pki"), (v) => ownedFolder("/var/lib/nodeagent/pki")(fileString(v))) ?? join(rootDir, "pki");

  const config: AgentConfig = {
    nodeName,
    nodeIPs,
    rootDir,
    runtime: {
      endpoint: s.string("runtime-endpoint"),
      podInfraImage: s.string("pod-infra-container-image") ?? AGENT_DEFAULTS["pod-infra-container-image"],
      requestTimeoutMs: s.get("runtime-request-timeout", positiveDuration, fileDuration) ?? 0,
    },
    manifestPath,
    fileCheckFrequencyMs: s.get("file-check-frequency", positiveDuration, fileDuration) ?? 0,
    manifestUrl,
    manifestUrlHeaders,
    httpCheckFrequencyMs: s.get("http-check-frequency", positiveDuration, fileDuration) ?? 0,
    pushToken,
    pushPolicy,
    syncFrequencyMs: s.get("sync-frequency", positiveDuration, fileDuration) ?? 0,
    evictionMonitoringPeriodMs: s.get("eviction-monitoring-period", positiveDuration, fileDuration) ?? 0,
    allowedUnsafeSysctls,
    eviction: resolveEviction(s),
    node: { labels, taints, maxPods: s.get("max-pods", (t) => wholeNumber(t, 0, 1_000_000), fileInt(0, 1_000_000)) ?? 0, reserved, kubeReserved, systemReserved },
    cgroups: resolveCgroups(s),
    server: {
      address: s.string("address", ipAddress) ?? AGENT_DEFAULTS.address,
      // Port 0 on the command line is "any free port"; in the file it is unset, as v1beta1 defaults it.
      port: s.get("port", (t) => wholeNumber(t, 0, 65535), fileInt(1, 65535)) ?? 0,
      ...(tlsCert && tlsKey ? { tls: { certFile: tlsCert, keyFile: tlsKey } } : {}),
      insecureHttp,
      anonymousReadOnly,
      ...resolveApiAuth(s, !!kubeconfig, insecureHttp),
    },
    pods: {
      logsDir: podLogsDir,
      cgroupRoot: cgroupRoot ?? AGENT_DEFAULTS["cgroup-root"],
      clusterDNS,
      clusterDomain: s.string("cluster-domain") ?? AGENT_DEFAULTS["cluster-domain"],
      resolvConf: s.string("resolv-conf") ?? AGENT_DEFAULTS["resolv-conf"],
    },
    plegMode: plegMode ?? "auto",
    logFormat: logFormat ?? "text",
    ...(localObjects ? { localObjects } : {}),
    ...(kubeconfig
      ? {
          cluster: {
            kubeconfig,
            ...(context ? { context } : {}),
            nodeStatusUpdateFrequencyMs: nodeStatusUpdateFrequencyMs ?? 0,
            certificates: { ...(bootstrapKubeconfig ? { bootstrapKubeconfig } : {}), rotateCertificates, serverTLSBootstrap },
          },
        }
      : {}),
    certDir,
    gc: resolveGarbageCollection(s),
    shutdown: resolveShutdown(s),
    warnings: [...(file?.warning ? [file.warning] : []), ...s.warnings],
  };
  const exposed = servingExposureError(config.server.address, insecureHttp);
  if (exposed) s.fail(exposed);
  if (insecureHttp && config.server.tls) s.fail("--insecure-http serves plain HTTP: drop it, or drop --tls-cert-file and --tls-private-key-file");
  if (s.errors.length === 1) throw new ConfigError(s.errors[0]!);
  if (s.errors.length > 1) throw new ConfigError(`${s.errors.length} problems:\n  ${s.errors.join("\n  ")}`);
  return config;
}

/**
 * The API's authentication and authorization (the kubelet's BuildAuth): each setting from its flag,
 * else the file's `authentication`/`authorization` block, else the default. Without --kubeconfig
 * there is no API server to send TokenReviews and SubjectAccessReviews to: the kubelet refuses to
 * start ("no client provided, cannot use webhook authentication"), and so does the agent when the
 * webhook is asked for on the command line; a file's webhook settings (kubeadm writes them) are
 * ignored with a warning, so a kubeadm config works for a standalone agent.
 */
function resolveApiAuth(s: Settings, cluster: boolean, insecureHttp: boolean): Pick<AgentConfig["server"], "authentication" | "authorization"> {
  const bool = (flag: string, block: string, path: string[], dflt: boolean): boolean => {
    if (s.isGiven(flag)) return s.flags[flag] === true;
    const f = s.nested(block, path);
    if (!f) return dflt;
    if (typeof f.value !== "boolean") {
      s.fail(`${f.at}: expected true or false, got ${describe(f.value)}`);
      return dflt;
    }
    return f.value;
  };
  const duration = (flag: string, block: string, path: string[]): number => {
    // The file's value is checked even when the flag overrides it.
    const inFile = s.nested(block, path);
    if (inFile && s.isGiven(flag) && !isZeroValue(inFile.value)) {
      try {
        fileDuration(inFile.value);
      } catch (e) {
        s.fail(`${inFile.at}: ${errorMessage(e)}`);
      }
    }
    const f = s.isGiven(flag) ? undefined : inFile;
    try {
      if (f && !isZeroValue(f.value)) return fileDuration(f.value);
      return positiveDuration(s.text(flag)!);
    } catch (e) {
      s.fail(f ? `${f.at}: ${errorMessage(e)}` : `--${flag} ${JSON.stringify(s.text(flag))}: ${errorMessage(e)}`);
      return 0;
    }
  };
  let clientCAFile: string | undefined;
  const caFlag = s.isGiven("client-ca-file") ? s.text("client-ca-file") : undefined;
  const caInFile = s.nested("authentication", ["x509", "clientCAFile"]);
  // The file's value is checked even when the flag overrides it.
  if (caFlag !== undefined && caInFile && caInFile.value !== "" && !existsSync(String(caInFile.value))) s.fail(`${caInFile.at}: no such file or directory`);
  const caFile = caFlag === undefined ? caInFile : undefined;
  const ca = caFlag ?? (caFile ? String(caFile.value) : undefined);
  if (ca) {
    if (!existsSync(ca)) s.fail(`${caFile ? caFile.at : `--client-ca-file ${JSON.stringify(ca)}`}: no such file or directory`);
    else clientCAFile = ca;
    if (insecureHttp) s.fail("--client-ca-file needs TLS, and --insecure-http serves plain HTTP: drop one of them");
  }

  let webhook = bool("authentication-token-webhook", "authentication", ["webhook", "enabled"], cluster);
  if (webhook && !cluster) {
    if (s.isGiven("authentication-token-webhook")) s.fail("--authentication-token-webhook asks the API server (TokenReview): give --kubeconfig too");
    else s.warn(`${s.nested("authentication", ["webhook", "enabled"])!.at}: ignored without --kubeconfig (there is no API server to review tokens)`);
    webhook = false;
  }
  let mode: AuthorizationMode = cluster ? "Webhook" : "PushTokenOnly";
  const modeInFile = s.nested("authorization", ["mode"]);
  if (s.isGiven("authorization-mode") && modeInFile && modeInFile.value !== "" && !(AUTHORIZATION_MODES as readonly string[]).includes(String(modeInFile.value))) {
    s.fail(`${modeInFile.at}: use ${AUTHORIZATION_MODES.join(" or ")}`);
  }
  const modeFile = s.isGiven("authorization-mode") ? undefined : modeInFile;
  const modeText = s.isGiven("authorization-mode") ? s.text("authorization-mode") : modeFile ? String(modeFile.value) : undefined;
  if (modeText !== undefined) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(modeText)) {
      s.fail(`${modeFile ? modeFile.at : `--authorization-mode ${JSON.stringify(modeText)}`}: use ${AUTHORIZATION_MODES.join(" or ")}`);
    } else if (modeText === "Webhook" && !cluster) {
      if (modeFile) s.warn(`${modeFile.at}: Webhook ignored without --kubeconfig (there is no API server to ask); only the push token is authorized`);
      else s.fail("--authorization-mode Webhook asks the API server (SubjectAccessReview): give --kubeconfig too, or use AlwaysAllow");
    } else {
      mode = modeText as AuthorizationMode;
    }
  }
  return {
    authentication: {
      ...(clientCAFile ? { clientCAFile } : {}),
      anonymous: bool("anonymous-auth", "authentication", ["anonymous", "enabled"], false),
      webhook: { enabled: webhook, cacheTTLMs: duration("authentication-token-webhook-cache-ttl", "authentication", ["webhook", "cacheTTL"]) },
    },
    authorization: {
      mode,
      webhook: {
        cacheAuthorizedTTLMs: duration("authorization-webhook-cache-authorized-ttl", "authorization", ["webhook", "cacheAuthorizedTTL"]),
        cacheUnauthorizedTTLMs: duration("authorization-webhook-cache-unauthorized-ttl", "authorization", ["webhook", "cacheUnauthorizedTTL"]),
      },
    },
  };
}

/**
 * The cgroup settings, checked as the kubelet checks them (pkg/kubelet/apis/config/validation and
 * cmd/kubelet/app/server.go): the driver, --cgroups-per-qos, and --enforce-node-allocatable, whose
 * system-reserved and kube-reserved need the cgroup to hold to what is reserved.
 */
function resolveCgroups(s: Settings): AgentConfig["cgroups"] {
  const driver = (s.get("cgroup-driver", (t) => oneOf(t, CGROUP_DRIVERS), (v) => oneOf(fileString(v), CGROUP_DRIVERS)) ?? "cgroupfs") as CgroupDriver;
  const perQOS = s.get("cgroups-per-qos", boolFlag, fileBool) ?? true;
  const keys = [...ENFORCEMENT_KEYS, "none"];
  const checkKeys = (list: string[]): string[] => {
    for (const k of list) if (!keys.includes(k)) throw new Invalid(`invalid option ${JSON.stringify(k)}: valid options are ${keys.map((x) => JSON.stringify(x)).join(", ")}`);
    if (list.includes("none") && list.length > 1) throw new Invalid(`may not contain additional enforcements when "none" is specified`);
    return list.filter((k) => k !== "none");
  };
  const enforce = (s.get("enforce-node-allocatable", (t) => checkKeys(t.split(",").map((x) => x.trim()).filter(Boolean)), (v) => checkKeys(fileStringList(v))) ?? ["pods"]) as EnforcementKey[];
  const systemReservedCgroup = s.string("system-reserved-cgroup", cgroupPath);
  const kubeReservedCgroup = s.string("kube-reserved-cgroup", cgroupPath);
  if (enforce.length && !perQOS) s.fail("--enforce-node-allocatable is not supported unless --cgroups-per-qos is turned on: give --enforce-node-allocatable= (empty) with --cgroups-per-qos=false");
  if (enforce.includes("system-reserved") && !systemReservedCgroup) s.fail(`--system-reserved-cgroup must be specified when "system-reserved" is in --enforce-node-allocatable (the cgroup held to --system-reserved)`);
  if (enforce.includes("kube-reserved") && !kubeReservedCgroup) s.fail(`--kube-reserved-cgroup must be specified when "kube-reserved" is in --enforce-node-allocatable (the cgroup held to --kube-reserved)`);
  return { driver, perQOS, enforceNodeAllocatable: enforce, ...(systemReservedCgroup ? { systemReservedCgroup } : {}), ...(kubeReservedCgroup ? { kubeReservedCgroup } : {}) };
}

function boolFlag(text: string): boolean {
  if (text === "true") return true;
  if (text === "false") return false;
  throw new Invalid("use true or false");
}

function fileBool(v: unknown): boolean {
  if (typeof v !== "boolean") throw new Invalid(`expected true or false, got ${describe(v)}`);
  return v;
}

const EVICTION_MAP_FLAGS: Record<ThresholdSetting, string> = {
  hard: "eviction-hard",
  soft: "eviction-soft",
  softGracePeriod: "eviction-soft-grace-period",
  minimumReclaim: "eviction-minimum-reclaim",
};

/**
 * The eviction settings (the kubelet's ParseThresholdConfig over its four maps). A map flag given
 * replaces the whole default map, as the kubelet's: `--eviction-hard memory.available<1Gi` drops the
 * default nodefs and imagefs thresholds, and `--eviction-hard=` leaves no hard threshold at all. In
 * the file an empty evictionHard ({}) is the zero value and keeps the defaults (the kubelet: none).
 */
function resolveEviction(s: Settings): EvictionSettings {
  const maps: Partial<Record<ThresholdSetting, Map<string, string>>> = {};
  for (const [setting, flag] of Object.entries(EVICTION_MAP_FLAGS) as Array<[ThresholdSetting, string]>) {
    const map = s.get(
      flag,
      (t) => {
        try {
          return setting === "hard" || setting === "soft" ? parseLangleMap(t) : parseEqualsMap(t);
        } catch (e) {
          throw e instanceof ThresholdError ? new Invalid(e.message) : e;
        }
      },
      (v) => new Map(Object.entries(fileMap(v)).map(([k, q]): [string, string] => [k, typeof q === "number" ? String(q) : fileString(q)])),
    );
    if (map) maps[setting] = map;
  }
  let thresholds: Threshold[] = [];
  try {
    thresholds = parseThresholds({ hard: maps.hard ?? new Map(), ...maps });
  } catch (e) {
    if (!(e instanceof ThresholdEntryError)) throw e;
    const flag = EVICTION_MAP_FLAGS[e.setting];
    const f = s.fromFile(flag);
    s.fail(`${f ? `${f.at}: ${f.name}` : `--${flag}`}: ${JSON.stringify(e.entry)}: ${e.message}`);
  }
  const pressureTransitionPeriodMs = s.get("eviction-pressure-transition-period", positiveDuration, fileDuration) ?? 0;
  const maxPodGracePeriodSeconds =
    s.get(
      "eviction-max-pod-grace-period",
      (t) => {
        if (!/^-?\d+$/.test(t.trim())) throw new Invalid("expected a whole number of seconds (negative: the pod's own grace period)");
        return Number(t);
      },
      fileInt(-(2 ** 31), 2 ** 31 - 1),
    ) ?? 0;
  const asRecords = Object.fromEntries(Object.entries(maps).map(([k, m]) => [k, Object.fromEntries(m)]));
  return { thresholds, maps: asRecords, pressureTransitionPeriodMs, maxPodGracePeriodSeconds };
}

/**
 * Image GC, container GC and log rotation (the kubelet's flags and fields, checked as its
 * ValidateKubeletConfiguration checks them): thresholds 0–100 with low below high, durations of 0 or
 * more, dead-container counts of −1 (no limit) or more, a log size above 0 and at least 2 log files.
 */
function resolveGarbageCollection(s: Settings): GarbageCollectionConfig {
  const int = (min: number) => (text: string): number => {
    if (!/^-?\d+$/.test(text.trim()) || Number(text) < min) throw new Invalid(`expected a whole number of at least ${min}`);
    return Number(text);
  };
  const percent = (flag: string) => s.get(flag, (t) => wholeNumber(t, 0, 100), fileInt(0, 100));
  const duration = (text: string): number => {
    const ms = durationText(text);
    if (ms < 0) throw new Invalid("must not be negative");
    return ms;
  };
  const fileDurationOrZero = fileDurationOf(duration, "2m");
  const size = (text: string): number => {
    let bytes: number;
    try {
      bytes = parseQuantity(text).value();
    } catch (e) {
      throw new Invalid(errorMessage(e));
    }
    if (bytes <= 0) throw new Invalid("must be greater than 0");
    return bytes;
  };
  const high = percent("image-gc-high-threshold") ?? 85;
  const low = percent("image-gc-low-threshold") ?? 80;
  if (low >= high) s.fail(`--image-gc-low-threshold (imageGCLowThresholdPercent) ${low} must be less than --image-gc-high-threshold (imageGCHighThresholdPercent) ${high}`);
  const maxFiles = s.get("container-log-max-files", (t) => wholeNumber(t, 0, 1_000_000), fileInt(0, 1_000_000)) ?? 5;
  if (maxFiles < 2) s.fail(`--container-log-max-files (containerLogMaxFiles) ${maxFiles} must be greater than 1: the live log and at least one rotated file`);
  return {
    image: { highThresholdPercent: high, lowThresholdPercent: low, minAgeMs: s.get("minimum-image-ttl-duration", duration, fileDurationOrZero) ?? 0 },
    imagePeriodMs: s.get("image-gc-period", positiveDuration, fileDuration) ?? 0,
    container: {
      minAgeMs: s.get("minimum-container-ttl-duration", duration, fileDurationOrZero) ?? 0,
      maxPerPodContainer: s.get("maximum-dead-containers-per-container", int(-1), fileInt(-1, 1_000_000)) ?? 1,
      maxContainers: s.get("maximum-dead-containers", int(-1), fileInt(-1, 1_000_000)) ?? -1,
    },
    containerPeriodMs: s.get("container-gc-period", positiveDuration, fileDuration) ?? 0,
    containerLogs: { maxSizeBytes: s.get("container-log-max-size", size, (v) => size(fileString(v))) ?? 0, maxFiles },
  };
}

/**
 * Graceful node shutdown, checked as the kubelet's ValidateKubeletConfiguration checks it: each grace
 * period 0 (off) or at least 1 s, the critical pods' part no longer than the whole, and the by-priority
 * list not beside the pair. --shutdown-pods needs a grace period to stop the pods within.
 */
function resolveShutdown(s: Settings): ShutdownConfig {
  const duration = (text: string): number => {
    const ms = durationText(text);
    if (ms < 0 || (ms > 0 && ms < 1000)) throw new Invalid("must be either zero or otherwise >= 1 sec");
    return ms;
  };
  const fileDurationOrZero = fileDurationOf(duration, "30s");
  const graceMs = s.get("shutdown-grace-period", duration, fileDurationOrZero) ?? 0;
  const criticalMs = s.get("shutdown-grace-period-critical-pods", duration, fileDurationOrZero) ?? 0;
  if (criticalMs > graceMs) s.fail(`--shutdown-grace-period-critical-pods (shutdownGracePeriodCriticalPods) ${criticalMs / 1000}s must be <= --shutdown-grace-period (shutdownGracePeriod) ${graceMs / 1000}s`);
  let periods = migrateGracePeriods(graceMs, criticalMs);
  const byPriority = s.field("shutdownGracePeriodByPodPriority");
  let byPodPriority = false;
  if (byPriority) {
    if (graceMs > 0 || criticalMs > 0) {
      s.fail(`${byPriority.at}: shutdownGracePeriodByPodPriority: cannot be given with shutdownGracePeriod (--shutdown-grace-period) or shutdownGracePeriodCriticalPods at the same time`);
    } else {
      try {
        if (!Array.isArray(byPriority.value)) throw new Invalid(`expected a list of {priority, shutdownGracePeriodSeconds}, got ${describe(byPriority.value)}`);
        periods = byPriority.value.map((entry, i) => {
          const m = fileMap(entry);
          const at = `entry ${i + 1}`;
          try {
            return { priority: fileInt(-(2 ** 31), 2 ** 31 - 1)(m.priority ?? 0), shutdownGracePeriodSeconds: fileInt(0, 2 ** 31 - 1)(m.shutdownGracePeriodSeconds ?? 0) };
          } catch (e) {
            throw new Invalid(`${at}: ${errorMessage(e)}`);
          }
        });
        byPodPriority = true;
      } catch (e) {
        if (!(e instanceof Invalid)) throw e;
        s.fail(`${byPriority.at}: shutdownGracePeriodByPodPriority: ${e.message}`);
      }
    }
  }
  const shutdownPods = s.flags["shutdown-pods"] === true;
  if (shutdownPods && periods.length === 0) s.fail("--shutdown-pods stops the pods within the graceful shutdown's budget: give --shutdown-grace-period (or shutdownGracePeriodByPodPriority in --config)");
  return { periods, gracePeriodMs: graceMs, criticalPodsMs: criticalMs, byPodPriority, shutdownPods };
}

function oneOf(text: string, options: readonly string[]): string {
  if (!options.includes(text)) throw new Invalid(`use ${options.join(", ")}`);
  return text;
}

