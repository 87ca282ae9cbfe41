// What `nodeagent hollow` is asked for: how many nodes, their names, identity, capacity and labels, how
// fast their runtime starts pods, and how hard each may call the API server (the kubelet's kubeAPIQPS
// and kubeAPIBurst).
import { parseQuantity } from "../api";
import { ConfigError, errorMessage } from "../util";

/** What each hollow node reports as its machine: whole CPUs (the Node's capacity), bytes of memory, pods. */
export interface HollowCapacity {
  cpu: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
}

/** kubemark's hollow node defaults: 1 CPU is too few for 30 pods of 100m, so the default is 4 CPUs, 8Gi, 100Gi. */
export const DEFAULT_CAPACITY: HollowCapacity = { cpu: 4, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30 };

export interface HollowOptions {
  /** The kubeconfig every node uses (one identity allowed to act for all), or each node's own with bootstrap. */
  kubeconfig: string;
  /** TLS bootstrap: each node requests its own system:node:<name> certificate with these credentials. */
  bootstrapKubeconfig?: string;
  nodes: number;
  /** The first node's index: nodes are <prefix><firstIndex> … and their addresses follow the index, so processes given disjoint ranges share a cluster without two nodes or pods on one IP. */
  firstIndex: number;
  namePrefix: string;
  /** Where each node keeps its state: <rootDir>/<node name>. */
  rootDir: string;
  maxPods: number;
  capacity: HollowCapacity;
  /** --node-labels, as the agent takes them. */
  nodeLabels?: string;
  /** How long RunPodSandbox and StartContainer take in the in-memory runtime. */
  podStartLatencyMs: number;
  /** The kubelet's client limits, per node. */
  qps: number;
  burst: number;
  /** How many nodes start (or stop) at the same time. */
  startParallelism: number;
  logFormat: "text" | "json";
}

/** `cpu=4,memory=8Gi,ephemeral-storage=100Gi`: any subset, the rest from the default. */
export function parseCapacity(text: string): HollowCapacity {
  const out = { ...DEFAULT_CAPACITY };
  for (const part of text.split(",").filter((p) => p.trim() !== "")) {
    const eq = part.indexOf("=");
    const key = eq < 0 ? part.trim() : part.slice(0, eq).trim();
    const value = eq < 0 ? "" : part.slice(eq + 1).trim();
    let q;
    try {
      q = parseQuantity(value);
    } catch (e) {
      throw new ConfigError(`--capacity ${key}=${value}: ${errorMessage(e)}`);
    }
    if (key === "cpu") {
      const cpus = q.milli() / 1000;
      if (!Number.isInteger(cpus) || cpus < 1) throw new ConfigError(`--capacity cpu=${value}: a whole number of CPUs, at least 1`);
      out.cpu = cpus;
    } else if (key === "memory") {
      if (q.value() < 2 ** 20) throw new ConfigError(`--capacity memory=${value}: at least 1Mi`);
      out.memoryBytes = q.value();
    } else if (key === "ephemeral-storage") {
      out.ephemeralStorageBytes = q.value();
    } else {
      throw new ConfigError(`--capacity: unknown resource "${key}" (cpu, memory, ephemeral-storage)`);
    }
  }
  return out;
}
