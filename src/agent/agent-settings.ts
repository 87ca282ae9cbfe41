// The agent's own settings (the --config file itself, the sync period, the pods' DNS and log folder,
// the PLEG mode, the log format, the standalone objects), declared once as rows (util/settings.ts)
// and resolved here; the subsystems' rows live beside their code (agent-config.ts lists them).
import type { PlegModeSetting } from "../pleg";
import {
  DURATION,
  fileDuration,
  fileString,
  fileStringList,
  formatDuration,
  ipAddress,
  listFlag,
  type LogFormat,
  mustBeDirectory,
  oneOf,
  ownedFolder,
  positiveDuration,
  type Setting,
  type SettingsReader,
  STRING,
  STRINGS,
} from "../util";

/** The pods' settings as AgentConfig holds them. */
export interface PodSettings {
  logsDir: string;
  cgroupRoot: string;
  clusterDNS: string[];
  clusterDomain: string;
  resolvConf: string;
}

/** What the rows show in /configz (AgentConfig has these). */
export interface AgentView {
  syncFrequencyMs: number;
  pods: PodSettings;
}

export const PLEG_MODES = ["auto", "generic", "evented"] as const;
export const LOG_FORMATS = ["text", "json"] as const;

/** --root-dir: shared with the commands that may start a managed containerd (cmd/runtime-args.ts). */
export const ROOT_DIR_SETTING: Setting<AgentView> = {
  flag: "root-dir",
  valueHint: "dir",
  default: "/var/lib/nodeagent",
  doc: "Data of the managed containerd; image tarballs in <root-dir>/images/ are imported",
};

export const AGENT_OWN_SETTINGS: ReadonlyArray<Setting<AgentView>> = [
  ROOT_DIR_SETTING,
  { flag: "config", valueHint: "file", doc: "KubeletConfiguration YAML (kubeadm's /var/lib/kubelet/config.yaml works); flags override it" },
  {
    flag: "sync-frequency",
    field: "syncFrequency",
    fieldType: DURATION,
    valueHint: "duration",
    default: "1m",
    show: (c) => formatDuration(c.syncFrequencyMs),
    doc: "Every pod is synced at least this often",
  },
  {
    flag: "cluster-dns",
    field: "clusterDNS",
    fieldType: STRINGS,
    valueHint: "ip,…",
    show: (c) => (c.pods.clusterDNS.length ? c.pods.clusterDNS : undefined),
    doc: "Cluster DNS servers: ClusterFirst pods resolve through them (without, the host's resolv.conf, as the kubelet)",
  },
  {
    flag: "cluster-domain",
    field: "clusterDomain",
    fieldType: STRING,
    valueHint: "domain",
    default: "cluster.local",
    show: (c) => c.pods.clusterDomain,
    doc: "The cluster's DNS domain, searched by ClusterFirst pods and ending the FQDN of a pod with a subdomain (/etc/hosts, setHostnameAsFQDN)",
  },
  {
    flag: "resolv-conf",
    field: "resolvConf",
    fieldType: STRING,
    valueHint: "file",
    default: "/etc/resolv.conf",
    show: (c) => c.pods.resolvConf,
    doc: "The host's resolver configuration, the base of the pods' DNS",
  },
  {
    flag: "pod-logs-dir",
    field: "podLogsDir",
    fieldType: STRING,
    valueHint: "dir",
    default: "/var/log/pods",
    show: (c) => c.pods.logsDir,
    doc: "Container logs: <dir>/<ns>_<name>_<uid>/<container>/<n>.log. Absolute, not / or a system folder (/etc, /var/log, …): the GC removes the folders of gone pods there",
  },
  { flag: "pleg-mode", kind: "enum", options: ["auto", "generic", "evented"], default: "auto", doc: "See nodeagent pleg watch --help" },
  { flag: "log-format", kind: "enum", options: ["text", "json"], default: "text", doc: "Log format on stderr" },
  {
    flag: "local-objects",
    valueHint: "dir",
    doc: "ConfigMap and Secret manifests for the configMap/secret volumes and env of static and pushed pods (watched); without it or --kubeconfig such pods wait",
  },
];

/** --root-dir: a folder the agent owns (it deletes in it), never empty, / or a system folder. */
export function resolveRootDir(s: SettingsReader): string {
  const check = ownedFolder("/var/lib/nodeagent");
  return s.get("root-dir", check, (v) => check(fileString(v))) ?? ROOT_DIR_SETTING.default!;
}

export function resolveSyncFrequency(s: SettingsReader): number {
  return s.get("sync-frequency", positiveDuration, fileDuration) ?? 0;
}

export function resolveClusterDNS(s: SettingsReader): string[] {
  return (
    s.get(
      "cluster-dns",
      (t) => listFlag(t).map(ipAddress),
      (v) => fileStringList(v).map(ipAddress),
    ) ?? []
  );
}

export function resolvePlegMode(s: SettingsReader): PlegModeSetting | undefined {
  return s.get("pleg-mode", (t) => oneOf(t, PLEG_MODES), fileString) as PlegModeSetting | undefined;
}

export function resolveLogFormat(s: SettingsReader): LogFormat | undefined {
  return s.get("log-format", (t) => oneOf(t, LOG_FORMATS), fileString) as LogFormat | undefined;
}

export function resolveLocalObjects(s: SettingsReader): string | undefined {
  return s.string("local-objects", mustBeDirectory);
}

/** --pod-logs-dir: the folder the GC deletes gone pods' logs in; an empty value is an error, not the default (issue 24). */
export function resolvePodLogsDir(s: SettingsReader): string | undefined {
  const check = ownedFolder("/var/log/pods");
  return s.get("pod-logs-dir", check, (v) => check(fileString(v)));
}
