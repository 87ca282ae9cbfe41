// The v1 Node object that describes this host: what the kubelet's node status setters
// (k/k pkg/kubelet/nodestatus/setters.go) and initialNode (kubelet_node_status.go) compute, from
// the host's own files instead of cAdvisor. buildNode assembles it from the host's facts
// (host-facts.ts, a parameter so the arithmetic is testable), capacity and allocatable (capacity.ts),
// the conditions (conditions.ts), the runtime's version and images, and the addresses
// (node-address.ts's, resolved once at start).
import type { ContainerImage, Node, NodeAddress, Taint } from "kubernetes-types/core/v1";
import type { CriClient } from "../cri";
import { apiTime } from "../util";
import { nodeResources, type NodeResourceOptions } from "./capacity";
import { condition, type NodeFeatures, pressureConditions, runtimeStatusFacts } from "./conditions";
import { readHostFacts, type HostFacts } from "./host-facts";
import { DECLARED_FEATURES } from "./declared-features";
import { KUBE_PROXY_VERSION, kubeletVersion } from "./version";

/** nodeStatusMaxImages default, and setters.go MaxNamesPerImageInNodeStatus. */
export const MAX_IMAGES_IN_NODE_STATUS = 50;
export const MAX_NAMES_PER_IMAGE = 5;

/** maxPods, reserved and evictionReservation: capacity.ts's NodeResourceOptions. */
export interface BuildNodeOptions extends NodeResourceOptions {
  nodeName: string;
  /** Given labels (--node-labels); they override the defaults, as in the kubelet's initialNode. */
  labels?: Record<string, string>;
  taints?: Taint[];
  runtime: Pick<CriClient, "version" | "listImages" | "status">;
  /**
   * The agent's own readiness (PLEG health, sync loop); runtime conditions are added here. `pressure`:
   * the eviction manager's node conditions (MemoryPressure, DiskPressure, PIDPressure) that are true.
   */
  conditions: { ready: { ok: boolean; message: string }; pressure?: ReadonlySet<string> };
  /** Milliseconds since the epoch (Clock.now()). */
  now: number;
  /** nodeagent's version: kubeletVersion is kubeletVersion(version), "v1.36.2+nodeagent.<version>". */
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

  // Capacity from the machine; allocatable less what is reserved and what eviction holds back.
  const { capacity, allocatable } = nodeResources(host, o);

  const [version, images, rtFacts] = await Promise.all([
    // setters.go VersionInfo: "<runtime type>://<version>", the version "Unknown" when Version fails.
    o.runtime.version().then(
      (v) => `${o.runtimeName || v.runtimeName}://${v.runtimeVersion}`,
      () => `${o.runtimeName || "containerd"}://Unknown`,
    ),
    nodeImages(o.runtime),
    runtimeStatusFacts(o.runtime),
  ]);
  const rtErrors = rtFacts.errors;

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
        // Deprecated: the 1.36 VersionInfo setter leaves it empty (DisableNodeKubeProxyVersion, locked on).
        kubeProxyVersion: KUBE_PROXY_VERSION,
        operatingSystem: "linux",
        architecture: host.architecture,
      },
      images,
      // setters.go NodeFeatures: what the runtime said it can do, when it said anything.
      ...(rtFacts.features ? ({ features: rtFacts.features } as { features: NodeFeatures }) : {}),
      // declaredFeatures: what the agent proves it does (declared-features.ts); empty today.
      ...(DECLARED_FEATURES.length ? { declaredFeatures: [...DECLARED_FEATURES] } : {}),
    },
  };
  return node;
}
