// The workloads of `make bench-schedule`: scheduler_perf's shapes (k/k test/integration/scheduler_perf,
// config/performance-config.yaml and its templates), as objects every contender gets the same of — our
// scheduler in memory, the floor, and, through a real API server, our scheduler and kube-scheduler.
//   SchedulingBasic           plain pods
//   TopologySpreading         measured pods spread over the 3 zones (maxSkew 5, DoNotSchedule,
//                             selector color=blue)
//   SchedulingPodAntiAffinity every pod has a required hostname anti-affinity to color=green pods; the
//                             init pods are in another namespace (sched-0, the measured ones in sched-1,
//                             as upstream), so the measured pods take one node each
// Nodes have 4 CPUs, 32 GiB and 110 pods (node-default.yaml) and are in one of 3 zones in every shape
// (only TopologySpreading's constraint reads the label); pods request 100m and 500Mi (pod-default.yaml).
// The init pods are created already bound, one node after another, which is where a scheduler
// spreading them by LeastAllocated puts them: only the measured pods are scheduled.
import type { Node, Pod, PodSpec } from "kubernetes-types/core/v1";

export const ZONE_LABEL = "topology.kubernetes.io/zone";
export const HOSTNAME_LABEL = "kubernetes.io/hostname";
/** Every pod carries bench=init or bench=measured: the API run watches and deletes by it. */
export const PHASE_LABEL = "bench";

export interface Shape {
  name: string;
  initPod: (namespace: string, i: number, nodeName: string) => Pod;
  measuredPod: (namespace: string, i: number) => Pod;
}

/** One row of the table: a shape at a size. */
export interface Workload {
  shape: Shape;
  nodes: number;
  init: number;
  measured: number;
  /** Upstream's CI threshold for this shape at 5000 nodes (pods/s, not measured in this run). */
  threshold?: number;
  /** Also run through a real API server (with our scheduler and kube-scheduler). */
  api: boolean;
}

export const ZONES = 3;

export function makeNode(i: number): Node {
  const labels = { [HOSTNAME_LABEL]: `node-${i}`, [ZONE_LABEL]: `moon-${(i % ZONES) + 1}` };
  const resources = { cpu: "4", memory: "32Gi", pods: "110" };
  return { apiVersion: "v1", kind: "Node", metadata: { name: `node-${i}`, labels }, status: { capacity: resources, allocatable: resources } };
}

function makePod(namespace: string, name: string, phase: "init" | "measured", labels: Record<string, string> = {}, extra: Partial<PodSpec> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { ...labels, [PHASE_LABEL]: phase } },
    spec: {
      schedulerName: "default-scheduler",
      containers: [
        {
          name: "pause",
          image: "registry.k8s.io/pause:3.10",
          resources: { requests: { cpu: "100m", memory: "500Mi" }, limits: { cpu: "100m", memory: "500Mi" } },
        },
      ],
      ...extra,
    },
  };
}

const plainInit = (namespace: string, i: number, nodeName: string) => makePod(namespace, `init-${i}`, "init", {}, { nodeName });

const antiAffinity = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchExpressions: [{ key: "color", operator: "In", values: ["green"] }] }, topologyKey: HOSTNAME_LABEL },
    ],
  },
};

export const SCHEDULING_BASIC: Shape = {
  name: "SchedulingBasic",
  initPod: plainInit,
  measuredPod: (ns, i) => makePod(ns, `pod-${i}`, "measured"),
};

export const TOPOLOGY_SPREADING: Shape = {
  name: "TopologySpreading",
  initPod: plainInit,
  measuredPod: (ns, i) =>
    makePod(
      ns,
      `pod-${i}`,
      "measured",
      { color: "blue" },
      {
        topologySpreadConstraints: [
          { maxSkew: 5, topologyKey: ZONE_LABEL, whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { color: "blue" } } },
        ],
      },
    ),
};

export const POD_ANTI_AFFINITY: Shape = {
  name: "SchedulingPodAntiAffinity",
  initPod: (ns, i, nodeName) => makePod(ns, `init-${i}`, "init", { color: "green" }, { nodeName, affinity: antiAffinity }),
  measuredPod: (ns, i) => makePod(ns, `pod-${i}`, "measured", { color: "green" }, { affinity: antiAffinity }),
};

/** The node an init pod is bound to: one node after another, wrapping. */
export function initNodeName(i: number, nodes: number): string {
  return `node-${i % nodes}`;
}

/** Pods a node takes: 4 CPUs / 100m (memory and the pod count allow more). */
const PODS_PER_NODE = 40;
const MAX_SKEW = 5;

/**
 * What is wrong with where a scheduler put the measured pods (pod name → node), or undefined: a
 * throughput is only worth comparing when the constraints held. Checked: no node over its cpu (init
 * pods included), TopologySpreading's zones within maxSkew, the anti-affine pods one to a node.
 */
export function placementProblem(w: Workload, placed: ReadonlyMap<string, string>): string | undefined {
  const perNode = new Map<string, number>();
  for (let i = 0; i < w.init; i++) perNode.set(initNodeName(i, w.nodes), (perNode.get(initNodeName(i, w.nodes)) ?? 0) + 1);
  const measuredPerNode = new Map<string, number>();
  const perZone = new Array<number>(ZONES).fill(0);
  for (const node of placed.values()) {
    perNode.set(node, (perNode.get(node) ?? 0) + 1);
    measuredPerNode.set(node, (measuredPerNode.get(node) ?? 0) + 1);
    perZone[Number(node.slice("node-".length)) % ZONES]! += 1;
  }
  const full = [...perNode].find(([, n]) => n > PODS_PER_NODE);
  if (full) return `${full[0]} has ${full[1]} pods, room for ${PODS_PER_NODE}`;
  if (w.shape === TOPOLOGY_SPREADING && Math.max(...perZone) - Math.min(...perZone) > MAX_SKEW)
    return `zones hold ${perZone.join("/")} measured pods, skew above ${MAX_SKEW}`;
  if (w.shape === POD_ANTI_AFFINITY && measuredPerNode.size !== placed.size) return `${placed.size} anti-affine pods on only ${measuredPerNode.size} nodes`;
  return undefined;
}
