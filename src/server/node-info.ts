// The v1 Node object that describes this host: what the kubelet's node status setters
// (k/k pkg/kubelet/nodestatus/setters.go) and initialNode (kubelet_node_status.go) compute, from
// the host's own files instead of cAdvisor (the files cAdvisor's MachineInfo and VersionInfo read).
// Facts about the host are read once per call by readHostFacts(); buildNode takes them as a parameter
// so the arithmetic is testable. The addresses are node-address.ts's, resolved once at start.
import * as fs from "node:fs";
import * as os from "node:os";
import { join } from "node:path";
import { parseQuantity } from "../api/quantity";
import { apiTime } from "../util/time";
import type { ContainerImage, Node, NodeAddress, NodeCondition, Taint } from "kubernetes-types/core/v1";
import type { CriClient } from "../cri";
import type { StatusResponse } from "../cri/types";
import { errorMessage } from "../util/errors";

// ---------------------------------------------------------------------------------------------
// Host facts

export interface HostFacts {
  /** Online CPUs. */
  cpus: number;
  /** MemTotal from /proc/meminfo, in bytes. */
  memoryBytes: number;
  /** Size of the filesystem holding the agent's root dir (the kubelet's nodefs), when statfs works. */
  ephemeralStorageBytes?: number;
  machineID: string;
  systemUUID: string;
  bootID: string;
  kernelVersion: string;
  osImage: string;
  /** The huge page pools (/sys/kernel/mm/hugepages), as cAdvisor's MachineInfo.HugePages. */
  hugePages: HugePagePool[];
  /** GOARCH spelling: amd64, arm64, … */
  architecture: string;
}

export interface HugePagePool {
  pageSizeBytes: number;
  /** nr_hugepages: pages of that size set aside. */
  pages: number;
}

function readText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Node's process.arch → the GOARCH names Kubernetes uses in kubernetes.io/arch. */
export function goArch(arch: string = process.arch): string {
  const map: Record<string, string> = { x64: "amd64", arm64: "arm64", arm: "arm", ia32: "386", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64", loong64: "loong64" };
  return map[arch] ?? arch;
}

function countCpus(): number {
  // cAdvisor counts the processors listed in /proc/cpuinfo; os.cpus() is the fallback off Linux.
  const cpuinfo = readText("/proc/cpuinfo");
  const n = cpuinfo ? cpuinfo.split("\n").filter((l) => /^processor\s*:/.test(l)).length : 0;
  return n > 0 ? n : Math.max(1, os.cpus().length);
}

function memTotalBytes(): number {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(readText("/proc/meminfo") ?? "");
  return m ? Number(m[1]) * 1024 : os.totalmem();
}

/** cAdvisor's ContainerOsVersion: PRETTY_NAME of os-release, "Linux" without one. */
export function osPrettyName(osRelease: string | undefined): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(osRelease ?? "");
  if (!m) return "Linux";
  return m[1]!.trim().replace(/^(["'])(.*)\1$/, "$2");
}

/**
 * The huge page pools as cAdvisor reads them (machine.GetHugePagesInfo): one directory
 * hugepages-<size>kB per page size the kernel supports, its nr_hugepages the pages set aside. No
 * directory (no hugetlbfs support, or a container without /sys) means no pools.
 */
export function readHugePages(sysRoot = "/"): HugePagePool[] {
  const dir = join(sysRoot, "sys/kernel/mm/hugepages");
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const pools: HugePagePool[] = [];
  for (const name of names.sort()) {
    const m = /^hugepages-(\d+)kB$/.exec(name);
    if (!m) continue;
    const pages = Number((readText(join(dir, name, "nr_hugepages")) ?? "").trim());
    pools.push({ pageSizeBytes: Number(m[1]) * 1024, pages: Number.isSafeInteger(pages) && pages > 0 ? pages : 0 });
  }
  return pools.sort((a, b) => a.pageSizeBytes - b.pageSizeBytes);
}

/**
 * Reads the facts buildNode needs from this host. `rootDir` is the directory whose filesystem is
 * nodefs; `sysRoot` is where /etc, /proc and /sys are found ("/"; a fixture tree in tests).
 */
export function readHostFacts(rootDir = "/", sysRoot = "/"): HostFacts {
  const at = (path: string) => readText(join(sysRoot, path));
  let ephemeralStorageBytes: number | undefined;
  try {
    const st = fs.statfsSync(rootDir);
    ephemeralStorageBytes = Number(st.blocks) * Number(st.bsize);
  } catch {
    ephemeralStorageBytes = undefined;
  }
  return {
    cpus: countCpus(),
    memoryBytes: memTotalBytes(),
    ephemeralStorageBytes,
    // cAdvisor's machine-id files, in its order.
    machineID: (at("etc/machine-id") ?? at("var/lib/dbus/machine-id") ?? "").trim(),
    // Readable by root only on most hosts; cAdvisor leaves it empty too when it cannot read it.
    systemUUID: (at("sys/class/dmi/id/product_uuid") ?? "").trim(),
    bootID: (at("proc/sys/kernel/random/boot_id") ?? "").trim(),
    // VersionInfo.KernelVersion is uname -r; the osrelease file is the same string.
    kernelVersion: sysRoot === "/" ? os.release() : (at("proc/sys/kernel/osrelease") ?? "").trim(),
    osImage: osPrettyName(at("etc/os-release") ?? at("usr/lib/os-release")),
    hugePages: readHugePages(sysRoot),
    architecture: goArch(),
  };
}

// ---------------------------------------------------------------------------------------------
// Quantities (only what the node needs: cpu in millicores, bytes; the kubelet's resource.Quantity)

const BINARY_SUFFIX: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

/** Bytes in the canonical form the API server gives a BinarySI quantity: 1024 → "1Ki", 1536 → "1536". */
export function formatBytes(bytes: number): string {
  const b = Math.max(0, Math.floor(bytes));
  for (const suffix of ["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"]) {
    const unit = BINARY_SUFFIX[suffix]!;
    if (b >= unit && b % unit === 0) return `${b / unit}${suffix}`;
  }
  return String(b);
}

/** Millicores in canonical DecimalSI form: 4000 → "4", 3900 → "3900m". */
export function formatMillicores(milli: number): string {
  const m = Math.max(0, Math.round(milli));
  return m % 1000 === 0 ? String(m / 1000) : `${m}m`;
}

// ---------------------------------------------------------------------------------------------
// Labels and taints

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Why `key` is not a qualified name (apimachinery validation.IsQualifiedName), or undefined when it is. */
export function qualifiedNameError(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length > 2) return "a qualified name has at most one '/' (prefix/name)";
  const name = parts[parts.length - 1]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0) return "the prefix before '/' must not be empty";
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return `prefix ${JSON.stringify(prefix)} must be a DNS subdomain (lower case letters, digits, '-' and '.', at most 253 characters)`;
  }
  if (name.length === 0) return "the name must not be empty";
  if (name.length > 63) return `name ${JSON.stringify(name)} must be at most 63 characters`;
  if (!QUALIFIED_NAME_PART.test(name)) return `name ${JSON.stringify(name)} must consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit`;
  return undefined;
}

/** Why `value` is not a label value (validation.IsValidLabelValue), or undefined when it is. Empty is valid. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return `value ${JSON.stringify(value)} must be at most 63 characters`;
  if (value !== "" && !QUALIFIED_NAME_PART.test(value)) return `value ${JSON.stringify(value)} must be empty or consist of letters, digits, '-', '_' or '.', and start and end with a letter or digit`;
  return undefined;
}

/**
 * Parses --node-labels: "a=b,c=d" → { a: "b", c: "d" }. Spaces around keys and values are trimmed
 * and a repeated key takes the last value, as the kubelet's mapStringString flag does.
 */
export function parseLabels(spec: string): Record<string, string> {
  const labels: Record<string, string> = {};
  if (spec.trim() === "") return labels;
  for (const item of spec.split(",")) {
    const eq = item.indexOf("=");
    if (eq < 0) throw new Error(`invalid label ${JSON.stringify(item.trim())}: expected key=value`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    const err = qualifiedNameError(key) ?? labelValueError(value);
    if (err) throw new Error(`invalid label ${JSON.stringify(item.trim())}: ${err}`);
    labels[key] = value;
  }
  return labels;
}

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/**
 * Parses one --register-with-taints entry, "<key>=<value>:<effect>" or "<key>:<effect>"
 * (k/k pkg/util/taints parseTaint). The effect is required: the API server rejects a node taint
 * without one, so we fail at start instead of at registration.
 */
export function parseTaint(spec: string): Taint {
  const s = spec.trim();
  const colon = s.split(":");
  if (colon.length === 1) throw new Error(`invalid taint ${JSON.stringify(s)}: missing effect; expected key=value:effect or key:effect with effect one of ${TAINT_EFFECTS.join(", ")}`);
  if (colon.length > 2) throw new Error(`invalid taint ${JSON.stringify(s)}: expected key=value:effect or key:effect`);
  const effect = colon[1]!;
  if (!(TAINT_EFFECTS as readonly string[]).includes(effect)) throw new Error(`invalid taint ${JSON.stringify(s)}: effect ${JSON.stringify(effect)} must be one of ${TAINT_EFFECTS.join(", ")}`);
  const kv = colon[0]!.split("=");
  if (kv.length > 2) throw new Error(`invalid taint ${JSON.stringify(s)}: expected key=value:effect or key:effect`);
  const key = kv[0]!;
  const keyErr = qualifiedNameError(key);
  if (keyErr) throw new Error(`invalid taint ${JSON.stringify(s)}: key: ${keyErr}`);
  const taint: Taint = { key, effect };
  if (kv.length === 2) {
    const valueErr = labelValueError(kv[1]!);
    if (valueErr) throw new Error(`invalid taint ${JSON.stringify(s)}: ${valueErr}`);
    taint.value = kv[1]!;
  }
  return taint;
}

/** Parses a comma-separated list of taints (the kubelet flag's form); "" → []. */
export function parseTaints(spec: string): Taint[] {
  return spec.trim() === "" ? [] : spec.split(",").map(parseTaint);
}

// ---------------------------------------------------------------------------------------------
// The Node

/** The Kubernetes release whose kubelet the agent follows. */
export const KUBERNETES_VERSION = "1.24.1";

/**
 * Node.status.nodeInfo.kubeletVersion: the Kubernetes version followed, with nodeagent's own version
 * as semver build metadata — "v1.24.1+nodeagent.0.1.0", the shape k3s ("v1.24.1+k3s1") and RKE2
 * report. Tools parse it with apimachinery's version.ParseSemantic/ParseGeneric (or any semver
 * parser) as 1.24.1: build metadata does not take part in comparisons, where a pre-release suffix
 * ("-nodeagent…") would make it older than v1.24.1 in every version-gated check.
 */
export function kubeletVersion(agentVersion: string): string {
  const build = agentVersion.replace(/^v/, "").replace(/[^0-9A-Za-z.-]/g, "-").replace(/\.{2,}/g, ".").replace(/^\.|\.$/g, "");
  return `v${KUBERNETES_VERSION}+nodeagent${build ? `.${build}` : ""}`;
}

/**
 * The pressure conditions in the kubelet's words (nodestatus/setters.go MemoryPressureCondition,
 * DiskPressureCondition, PIDPressureCondition), true for those the eviction manager reports.
 */
function pressureConditions(pressure: ReadonlySet<string>, now: string, previous: Node | undefined): NodeCondition[] {
  const memory = pressure.has("MemoryPressure");
  const disk = pressure.has("DiskPressure");
  const pid = pressure.has("PIDPressure");
  return [
    memory
      ? condition("MemoryPressure", true, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", now, previous)
      : condition("MemoryPressure", false, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", now, previous),
    disk
      ? condition("DiskPressure", true, "KubeletHasDiskPressure", "kubelet has disk pressure", now, previous)
      : condition("DiskPressure", false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", now, previous),
    pid
      ? condition("PIDPressure", true, "KubeletHasInsufficientPID", "kubelet has insufficient PID available", now, previous)
      : condition("PIDPressure", false, "KubeletHasSufficientPID", "kubelet has sufficient PID available", now, previous),
  ];
}
/** nodeStatusMaxImages default, and setters.go MaxNamesPerImageInNodeStatus. */
export const MAX_IMAGES_IN_NODE_STATUS = 50;
export const MAX_NAMES_PER_IMAGE = 5;

export interface BuildNodeOptions {
  nodeName: string;
  /** Given labels (--node-labels); they override the defaults, as in the kubelet's initialNode. */
  labels?: Record<string, string>;
  taints?: Taint[];
  runtime: Pick<CriClient, "version" | "listImages" | "status">;
  maxPods: number;
  /** kube-reserved + system-reserved, as quantities. */
  reserved?: { cpu?: string; memory?: string; ephemeralStorage?: string };
  /**
   * The agent's own readiness (PLEG health, sync loop); runtime conditions are added here. `pressure`:
   * the eviction manager's node conditions (MemoryPressure, DiskPressure, PIDPressure) that are true.
   */
  conditions: { ready: { ok: boolean; message: string }; pressure?: ReadonlySet<string> };
  /**
   * What the hard eviction thresholds take off allocatable memory and ephemeral storage, given the
   * capacity (the eviction manager's hardEvictionReservation over the configured thresholds, whose
   * default is src/eviction's DEFAULT_EVICTION_HARD: the one place it is written).
   */
  evictionReservation: (capacity: { memoryBytes: number; ephemeralStorageBytes?: number }) => { memoryBytes: number; ephemeralStorageBytes: number };
  /** Milliseconds since the epoch (Clock.now()). */
  now: number;
  /** nodeagent's version: kubeletVersion is kubeletVersion(version), "v1.24.1+nodeagent.<version>". */
  version: string;
  /** The runtime's name as it gave it at start (CRI Version): containerRuntimeVersion is "<name>://<version>". */
  runtimeName?: string;
  /** status.addresses (node-address.ts resolveNodeAddresses); without them, only the Hostname (the node name). */
  addresses?: NodeAddress[];
  /** The agent's HTTP port, reported as status.daemonEndpoints.kubeletEndpoint. */
  port?: number;
  /** Host facts; read from this host with readHostFacts(rootDir) when not given. */
  host?: HostFacts;
  /** The agent's --root-dir: ephemeral-storage is the size of its filesystem (the kubelet's nodefs). Default "/". */
  rootDir?: string;
  /** The previous Node built, so conditions keep lastTransitionTime while their status is unchanged. */
  previous?: Node;
}

// The runtime's conditions (CRI Status) in the kubelet's words (kubelet.go updateRuntimeUp): for the
// node's Ready condition here and the network readiness gate of pod syncs (src/agent/runtime-state.ts).

export interface RuntimeConditionErrors {
  /** "container runtime not ready: RuntimeReady=false reason:… message:…", when it is not. */
  runtime?: string;
  /** "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:…", when it is not. */
  network?: string;
}

/** A condition the runtime does not report is not ready, printed "<nil>" as the kubelet prints a nil one. */
export function runtimeConditionErrors(status: StatusResponse): RuntimeConditionErrors {
  const conditions = status.status?.conditions ?? [];
  const describe = (type: string) => {
    const c = conditions.find((x) => x.type === type);
    return c ? { ok: c.status, text: `${c.type}=${c.status} reason:${c.reason} message:${c.message}` } : { ok: false, text: "<nil>" };
  };
  const rt = describe("RuntimeReady");
  const net = describe("NetworkReady");
  return {
    ...(rt.ok ? {} : { runtime: `container runtime not ready: ${rt.text}` }),
    ...(net.ok ? {} : { network: `container runtime network not ready: ${net.text}` }),
  };
}

/**
 * Why the runtime makes the node not ready, in the kubelet's words (kubelet.go updateRuntimeUp):
 * "container runtime not ready: RuntimeReady=false reason:… message:…" and "container runtime
 * network not ready: NetworkReady=false reason:NetworkPluginNotReady message:…".
 */
async function runtimeErrors(runtime: BuildNodeOptions["runtime"]): Promise<string[]> {
  let status;
  try {
    status = await runtime.status();
  } catch (err) {
    return [`container runtime is down: ${errorMessage(err)}`];
  }
  const e = runtimeConditionErrors(status);
  return [...(e.runtime ? [e.runtime] : []), ...(e.network ? [e.network] : [])];
}

function condition(type: string, isTrue: boolean, reason: string, message: string, now: string, previous: Node | undefined): NodeCondition {
  const status = isTrue ? "True" : "False";
  const prev = previous?.status?.conditions?.find((c) => c.type === type);
  const lastTransitionTime = prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
  return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime };
}

async function nodeImages(runtime: BuildNodeOptions["runtime"]): Promise<ContainerImage[]> {
  let images;
  try {
    images = await runtime.listImages();
  } catch {
    // setters.go Images: on a list error the node reports no images; the other setters still run.
    return [];
  }
  // Largest first, at most 50 images of at most 5 names each, digests before tags (setters.go Images).
  return [...images]
    .sort((a, b) => Number(b.size) - Number(a.size))
    .slice(0, MAX_IMAGES_IN_NODE_STATUS)
    .map((img) => ({ names: [...img.repoDigests, ...img.repoTags].slice(0, MAX_NAMES_PER_IMAGE), sizeBytes: Number(img.size) }));
}

export async function buildNode(o: BuildNodeOptions): Promise<Node> {
  const host = o.host ?? readHostFacts(o.rootDir);
  const now = apiTime(o.now);

  // Capacity from the machine; allocatable = capacity − reserved − hard eviction thresholds
  // (cm.GetNodeAllocatableReservation), clamped at zero as the kubelet does.
  const reserved = (what: string, q: string | undefined, unit: "milli" | "value") => {
    if (!q) return 0;
    try {
      return unit === "milli" ? parseQuantity(q).milli() : parseQuantity(q).value();
    } catch (e) {
      throw new Error(`invalid quantity ${JSON.stringify(q)} for reserved ${what}: ${errorMessage(e)}`);
    }
  };
  const reservedMilliCpu = reserved("cpu", o.reserved?.cpu, "milli");
  const reservedMemory = reserved("memory", o.reserved?.memory, "value");
  const reservedStorage = reserved("ephemeral-storage", o.reserved?.ephemeralStorage, "value");
  const capacity: Record<string, string> = {
    cpu: String(host.cpus),
    memory: formatBytes(host.memoryBytes),
    pods: String(o.maxPods),
  };
  const eviction = o.evictionReservation({ memoryBytes: host.memoryBytes, ephemeralStorageBytes: host.ephemeralStorageBytes });
  const allocatable: Record<string, string> = {
    cpu: formatMillicores(host.cpus * 1000 - reservedMilliCpu),
    memory: formatBytes(host.memoryBytes - reservedMemory - eviction.memoryBytes),
    pods: String(o.maxPods),
  };
  // cadvisor.CapacityFromMachineInfo: hugepages-<page size> = page size × pages, 0 for a pool with no
  // pages; MachineInfo then takes every hugepages capacity off allocatable memory (clamped at 0).
  let hugePagesBytes = 0;
  for (const pool of host.hugePages) {
    const name = `hugepages-${formatBytes(pool.pageSizeBytes)}`;
    capacity[name] = allocatable[name] = formatBytes(pool.pageSizeBytes * pool.pages);
    hugePagesBytes += pool.pageSizeBytes * pool.pages;
  }
  if (hugePagesBytes > 0) allocatable.memory = formatBytes(host.memoryBytes - reservedMemory - eviction.memoryBytes - hugePagesBytes);
  if (host.ephemeralStorageBytes !== undefined) {
    capacity["ephemeral-storage"] = formatBytes(host.ephemeralStorageBytes);
    allocatable["ephemeral-storage"] = formatBytes(host.ephemeralStorageBytes - reservedStorage - eviction.ephemeralStorageBytes);
  }

  const [version, images, rtErrors] = await Promise.all([
    // setters.go VersionInfo: "<runtime type>://<version>", the version "Unknown" when Version fails.
    o.runtime.version().then(
      (v) => `${o.runtimeName || v.runtimeName}://${v.runtimeVersion}`,
      () => `${o.runtimeName || "containerd"}://Unknown`,
    ),
    nodeImages(o.runtime),
    runtimeErrors(o.runtime),
  ]);

  // setters.go ReadyCondition: runtime errors first, then the rest, aggregated as utilerrors does
  // ("msg" for one error, "[a, b]" for several).
  const notReady = [...rtErrors, ...(o.conditions.ready.ok ? [] : [o.conditions.ready.message])];
  const ready = notReady.length === 0;
  const readyMessage = ready ? "kubelet is posting ready status" : notReady.length === 1 ? notReady[0]! : `[${notReady.join(", ")}]`;

  const addresses: NodeAddress[] = o.addresses?.map((a) => ({ ...a })) ?? [{ type: "Hostname", address: o.nodeName }];

  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": host.architecture,
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": host.architecture,
    "kubernetes.io/hostname": o.nodeName,
    "kubernetes.io/os": "linux",
    ...o.labels,
  };

  const node: Node = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: o.nodeName, labels },
    spec: o.taints && o.taints.length > 0 ? { taints: o.taints.map((t) => ({ ...t })) } : {},
    status: {
      capacity,
      allocatable,
      conditions: [
        ...pressureConditions(o.conditions.pressure ?? new Set(), now, o.previous),
        condition("Ready", ready, ready ? "KubeletReady" : "KubeletNotReady", readyMessage, now, o.previous),
      ],
      addresses,
      daemonEndpoints: { kubeletEndpoint: { Port: o.port ?? 0 } },
      nodeInfo: {
        machineID: host.machineID,
        systemUUID: host.systemUUID,
        bootID: host.bootID,
        kernelVersion: host.kernelVersion,
        osImage: host.osImage,
        containerRuntimeVersion: version,
        kubeletVersion: kubeletVersion(o.version),
        // 1.24's VersionInfo setter reports the kubelet's version here too (deprecated and emptied in 1.31).
        kubeProxyVersion: kubeletVersion(o.version),
        operatingSystem: "linux",
        architecture: host.architecture,
      },
      images,
    },
  };
  return node;
}
