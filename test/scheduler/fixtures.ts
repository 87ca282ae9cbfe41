// Builders for scheduler tests: nodes and pods as v1 objects, and a handle over a snapshot of them.
import type { Container, Node, Pod, Taint, Toleration } from "kubernetes-types/core/v1";
import { Cache } from "../../src/scheduler/cache/cache";
import { Snapshot } from "../../src/scheduler/cache/snapshot";
import { CycleState } from "../../src/scheduler/framework/cycle-state";
import type { ClusterClient, Handle } from "../../src/scheduler/framework/interface";
import { PodInfo } from "../../src/scheduler/model/pod-info";
import type { NodeInfo } from "../../src/scheduler/model/node-info";
import { FakeClock } from "../../src/util/clock";

export interface NodeOptions {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  images?: Array<{ names: string[]; sizeBytes: number }>;
  extra?: Record<string, string>;
}

export function node(name: string, o: NodeOptions = {}): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: {
      allocatable: { cpu: o.cpu ?? "4", memory: o.memory ?? "8Gi", pods: o.pods ?? "110", ...o.extra },
      ...(o.images ? { images: o.images } : {}),
    },
  };
}

export interface PodOptions {
  namespace?: string;
  cpu?: string;
  memory?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  priority?: number;
  tolerations?: Toleration[];
  nodeSelector?: Record<string, string>;
  affinity?: NonNullable<Pod["spec"]>["affinity"];
  topologySpreadConstraints?: NonNullable<Pod["spec"]>["topologySpreadConstraints"];
  hostPorts?: number[];
  image?: string;
  containers?: Container[];
  schedulingGates?: string[];
  preemptionPolicy?: string;
  startTime?: string;
  extra?: Record<string, string>;
}

let uidSeq = 0;

export function pod(name: string, o: PodOptions = {}): Pod {
  const requests: Record<string, string> = { ...o.extra };
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  const container: Container = {
    name: "main",
    image: o.image ?? "busybox:1.36",
    ...(Object.keys(requests).length ? { resources: { requests } } : {}),
    ...(o.hostPorts ? { ports: o.hostPorts.map((p) => ({ containerPort: p, hostPort: p, protocol: "TCP" })) } : {}),
  };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: o.namespace ?? "default", uid: `uid-${name}-${++uidSeq}`, ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      schedulerName: "default-scheduler",
      containers: o.containers ?? [container],
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.affinity ? { affinity: o.affinity } : {}),
      ...(o.topologySpreadConstraints ? { topologySpreadConstraints: o.topologySpreadConstraints } : {}),
      ...(o.schedulingGates ? { schedulingGates: o.schedulingGates.map((n) => ({ name: n })) } : {}),
      ...(o.preemptionPolicy ? { preemptionPolicy: o.preemptionPolicy } : {}),
    },
    ...(o.startTime ? { status: { startTime: o.startTime } } : {}),
  };
}

const noClient: ClusterClient = {
  bind: async () => {},
  deletePod: async () => {},
};

/** A snapshot of the nodes with the bound pods on them, and a Handle over it (no nominated pods). */
export function world(nodes: Node[], pods: Pod[] = [], o: { client?: ClusterClient; random?: () => number } = {}) {
  const cache = new Cache();
  for (const n of nodes) cache.addNode(n);
  for (const p of pods) cache.addPod(p);
  const snapshot = new Snapshot();
  cache.updateSnapshot(snapshot);
  const clock = new FakeClock();
  const handle: Handle = {
    clock,
    client: o.client ?? noClient,
    snapshot: () => snapshot,
    random: o.random ?? (() => 0),
    nominatedPodsForNode: () => [],
    runFilterPluginsWithNominatedPods: () => undefined,
    runPreFilterExtensionAddPod: () => undefined,
    runPreFilterExtensionRemovePod: () => undefined,
    getWaitingPod: () => undefined,
    iterateOverWaitingPods: () => {},
    rejectWaitingPod: () => false,
    clearNomination: () => {},
    background: () => {},
  };
  const info = (name: string): NodeInfo => {
    const ni = snapshot.get(name);
    if (!ni) throw new Error(`no node ${name}`);
    return ni;
  };
  return { cache, snapshot, handle, info, clock };
}

export function pi(p: Pod): PodInfo {
  return new PodInfo(p);
}

export function state(): CycleState {
  return new CycleState();
}
