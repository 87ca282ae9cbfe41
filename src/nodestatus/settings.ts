// The Node object's settings (its name and addresses, labels, taints, pods capacity, reservations,
// and how often its status is written), declared once as rows (util/settings.ts) and resolved here.
// Future home (issue 25): src/nodestatus/settings.ts, with node-info.ts and node-address.ts.
import { hostname } from "node:os";
import type { Taint } from "kubernetes-types/core/v1";
import { forbiddenNodeLabelsError, isDNS1123Subdomain, parseQuantity } from "../api";
import {
  describe,
  DURATION,
  errorMessage,
  fileDuration,
  fileInt,
  fileMap,
  fileQuantityEntries,
  fileString,
  formatDuration,
  INT,
  Invalid,
  isUnspecifiedIP,
  parseIP,
  positiveDuration,
  QUANTITIES,
  type Setting,
  type SettingsReader,
  STRING,
  struct,
  wholeNumber,
} from "../util";
import { nodeIPProblem, parseNodeIPs, realHostNetwork, type HostNetwork } from "./node-address";
import { parseLabels, parseTaint } from "./labels-taints";

/** Resources kept off the node's allocatable (--kube-reserved plus --system-reserved), as quantities. */
export interface ReservedResources {
  cpu?: string;
  memory?: string;
  ephemeralStorage?: string;
}

export interface NodeSettings {
  labels: Record<string, string>;
  taints: Taint[];
  maxPods: number;
  reserved: ReservedResources;
  /** --kube-reserved and --system-reserved each on its own (reserved is their sum), for the cgroups they cap. */
  kubeReserved: ReservedResources;
  systemReserved: ReservedResources;
}

/** What the rows show in /configz (AgentConfig has these). */
export interface NodeView {
  node: NodeSettings;
  cluster?: { nodeStatusUpdateFrequencyMs: number };
}

export const NODE_SETTINGS: ReadonlyArray<Setting<NodeView>> = [
  { flag: "hostname-override", valueHint: "name", doc: "Node name and its Hostname address, lower-cased (default: the hostname)" },
  {
    flag: "node-ip",
    valueHint: "ip[,ip]",
    doc: "The Node's InternalIP, the address the API server dials and the pods' hostIP: one IP of this host, or an IPv4,IPv6 pair (0.0.0.0 or :: alone: pick one of that family). Default: the node name's address, else the default route's interface's, as the kubelet",
  },
  { flag: "node-labels", valueHint: "key=value,…", doc: "Labels of the node; in kubernetes.io and k8s.io only those a kubelet may set itself" },
  {
    flag: "register-with-taints",
    field: "registerWithTaints",
    fieldType: { kind: "list", of: struct({ key: STRING, value: STRING, effect: STRING, timeAdded: STRING }) },
    valueHint: "key=value:Effect,…",
    show: (c) => (c.node.taints.length ? c.node.taints : undefined),
    doc: "Taints of the node",
  },
  {
    flag: "max-pods",
    field: "maxPods",
    fieldType: INT,
    valueHint: "int",
    default: "110",
    show: (c) => c.node.maxPods,
    doc: "Pods this node can run (its pods capacity)",
  },
  {
    flag: "kube-reserved",
    field: "kubeReserved",
    fieldType: QUANTITIES,
    valueHint: "cpu=…,memory=…",
    doc: "Resources kept for Kubernetes daemons (cpu, memory, ephemeral-storage): taken off allocatable",
  },
  {
    flag: "system-reserved",
    field: "systemReserved",
    fieldType: QUANTITIES,
    valueHint: "cpu=…,memory=…",
    doc: "Resources kept for the OS, same form: taken off allocatable",
  },
  {
    flag: "node-status-update-frequency",
    field: "nodeStatusUpdateFrequency",
    fieldType: DURATION,
    valueHint: "duration",
    default: "10s",
    show: (c) => (c.cluster ? formatDuration(c.cluster.nodeStatusUpdateFrequencyMs) : undefined),
    doc: "With --kubeconfig: how often the node status is computed and written when it changed",
  },
];

/**
 * How the agent looks its host up when a flag does not say: its name, and its interfaces (a
 * --node-ip must be one of theirs). Injected by tests. (Not the machine facts of node-info.ts's
 * HostFacts, which the Node's capacity and info are built from.)
 */
export interface HostLookup {
  hostname(): string;
  network: Pick<HostNetwork, "interfaces">;
}

export const realHostLookup: HostLookup = { hostname, network: realHostNetwork };

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

/** The node's name (nodeutil.GetHostname: the override or the host's name, trimmed and lower-cased) and --node-ip. */
export function resolveNodeIdentity(s: SettingsReader, host: HostLookup): { nodeName: string; nodeIPs: string[] } {
  const nodeName = (s.string("hostname-override") ?? host.hostname()).trim().toLowerCase();
  const nameErrors = isDNS1123Subdomain(nodeName);
  if (nameErrors.length) s.fail(`node name ${JSON.stringify(nodeName)} (--hostname-override, else the host's name): ${nameErrors.join("; ")}`);
  const nodeIPs =
    s.get(
      "node-ip",
      (t) => nodeIPsFlag(t, host.network),
      () => [],
    ) ?? [];
  return { nodeName, nodeIPs };
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
  return {
    ...(milliCPU ? { cpu: `${milliCPU}m` } : {}),
    ...(memory ? { memory: String(memory) } : {}),
    ...(storage ? { ephemeralStorage: String(storage) } : {}),
  };
}

function reservedFlag(text: string): Array<[string, string]> {
  return text
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean)
    .map((item) => {
      const eq = item.indexOf("=");
      if (eq <= 0 || eq === item.length - 1) throw new Invalid(`${JSON.stringify(item)}: use name=quantity, e.g. cpu=500m`);
      return [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    });
}

/** --node-labels (NodeRestriction's rules), --register-with-taints, --kube-reserved and --system-reserved. */
export function resolveNodeRegistration(s: SettingsReader): Omit<NodeSettings, "maxPods"> {
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

  const reservedEntries = (flag: string) => s.get(flag, reservedFlag, fileQuantityEntries) ?? [];
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
  return { labels, taints, reserved, kubeReserved, systemReserved };
}

export function resolveMaxPods(s: SettingsReader): number {
  return s.get("max-pods", (t) => wholeNumber(t, 0, 1_000_000), fileInt(0, 1_000_000)) ?? 0;
}

/** --node-status-update-frequency (used with --kubeconfig). */
export function resolveNodeStatusUpdateFrequency(s: SettingsReader): number | undefined {
  return s.get("node-status-update-frequency", positiveDuration, fileDuration);
}
