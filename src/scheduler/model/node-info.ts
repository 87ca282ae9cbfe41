// NodeInfo (pkg/scheduler/framework types.go): a node with the pods on it (bound or assumed) and the
// sums the filters need: requested and non-zero requested resources, allocatable, used host ports,
// the pods with (anti-)affinity, and the images it holds.
import type { Node, Taint } from "kubernetes-types/core/v1";
import { NO_LABELS, type Labels } from "./labels";
import type { HostPort, PodInfo } from "./pod-info";
import { Resource } from "./resource";

/** An image and the nodes that have it, shared by every NodeInfo (the cache's imageStates). */
export interface ImageState {
  size: number;
  nodes: Set<string>;
}

/** HostPortInfo: ip → "protocol/port" in use. 0.0.0.0 conflicts with every address. */
export class HostPortInfo {
  private readonly byIP = new Map<string, Map<string, number>>();

  add(p: HostPort): void {
    let m = this.byIP.get(p.ip);
    if (!m) this.byIP.set(p.ip, (m = new Map()));
    const k = `${p.protocol}/${p.port}`;
    m.set(k, (m.get(k) ?? 0) + 1);
  }

  remove(p: HostPort): void {
    const m = this.byIP.get(p.ip);
    const k = `${p.protocol}/${p.port}`;
    const n = m?.get(k);
    if (!m || n === undefined) return;
    if (n <= 1) m.delete(k);
    else m.set(k, n - 1);
    if (m.size === 0) this.byIP.delete(p.ip);
  }

  /** HostPortInfo.CheckConflict. */
  conflicts(p: HostPort): boolean {
    const k = `${p.protocol}/${p.port}`;
    if (p.ip === "0.0.0.0") {
      for (const m of this.byIP.values()) if (m.has(k)) return true;
      return false;
    }
    return !!this.byIP.get(p.ip)?.has(k) || !!this.byIP.get("0.0.0.0")?.has(k);
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [ip, m] of this.byIP) c.byIP.set(ip, new Map(m));
    return c;
  }
}

let generation = 0;
export function nextGeneration(): number {
  return ++generation;
}

export class NodeInfo {
  node: Node | undefined;
  name = "";
  labels: Labels = NO_LABELS;
  taints: readonly Taint[] = [];
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  requested = new Resource();
  /** Requested, with 100m/200Mi counted for containers that request no CPU/memory. */
  nonZeroRequested = new Resource();
  allocatable = new Resource();
  imageStates = new Map<string, ImageState>();
  generation = nextGeneration();

  constructor(node?: Node) {
    if (node) this.setNode(node);
  }

  setNode(node: Node): void {
    this.node = node;
    this.name = node.metadata?.name ?? "";
    this.labels = node.metadata?.labels ?? NO_LABELS;
    this.taints = node.spec?.taints ?? [];
    this.allocatable = Resource.from(node.status?.allocatable);
    this.generation = nextGeneration();
  }

  get unschedulable(): boolean {
    return !!this.node?.spec?.unschedulable;
  }

  addPodInfo(pi: PodInfo): void {
    this.pods.push(pi);
    if (pi.hasAffinity()) this.podsWithAffinity.push(pi);
    if (pi.requiredAntiAffinityTerms.length > 0) this.podsWithRequiredAntiAffinity.push(pi);
    this.update(pi, 1);
  }

  /** Removes the pod with this UID; false when it is not on the node. */
  removePod(uid: string): boolean {
    const i = this.pods.findIndex((p) => p.uid === uid);
    if (i < 0) return false;
    const pi = this.pods[i]!;
    // Order is not kept, as upstream swaps in the last element.
    this.pods[i] = this.pods[this.pods.length - 1]!;
    this.pods.pop();
    removeFrom(this.podsWithAffinity, uid);
    removeFrom(this.podsWithRequiredAntiAffinity, uid);
    this.update(pi, -1);
    return true;
  }

  private update(pi: PodInfo, sign: 1 | -1): void {
    const r = pi.resource();
    this.requested.addResource(r.requests, sign);
    this.nonZeroRequested.milliCPU += sign * r.nonZeroCPU;
    this.nonZeroRequested.memory += sign * r.nonZeroMemory;
    for (const p of pi.hostPorts()) {
      if (sign > 0) this.usedPorts.add(p);
      else this.usedPorts.remove(p);
    }
    this.generation = nextGeneration();
  }

  /** A copy whose lists and sums can change without touching this one (NodeInfo.Snapshot). */
  clone(): NodeInfo {
    const c = new NodeInfo();
    c.copyFrom(this);
    return c;
  }

  /** Makes this NodeInfo a copy of `o`, keeping its identity (the snapshot updates in place). */
  copyFrom(o: NodeInfo): void {
    this.node = o.node;
    this.name = o.name;
    this.labels = o.labels;
    this.taints = o.taints;
    this.pods = o.pods.slice();
    this.podsWithAffinity = o.podsWithAffinity.slice();
    this.podsWithRequiredAntiAffinity = o.podsWithRequiredAntiAffinity.slice();
    this.usedPorts = o.usedPorts.clone();
    this.requested = o.requested.clone();
    this.nonZeroRequested = o.nonZeroRequested.clone();
    this.allocatable = o.allocatable.clone();
    this.imageStates = o.imageStates;
    this.generation = o.generation;
  }
}

function removeFrom(list: PodInfo[], uid: string): void {
  const i = list.findIndex((p) => p.uid === uid);
  if (i < 0) return;
  list[i] = list[list.length - 1]!;
  list.pop();
}
