// The scheduler cache (pkg/scheduler/backend/cache/cache.go): nodes and the pods bound or assumed on
// them. A pod is assumed on its node as soon as the scheduling cycle chose it, so the next cycle
// already counts it while binding runs; binding's failure forgets it, the cluster's confirmation
// (the pod seen bound) makes it a plain pod. updateSnapshot copies only the nodes that changed.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { podKey } from "../../api";
import { Workloads } from "../model/default-selector";
import type { Labels } from "../model/labels";
import { NodeInfo, type ImageState } from "../model/node-info";
import { PodInfo } from "../model/pod-info";
import { NodeTree } from "./node-tree";
import type { Snapshot } from "./snapshot";

interface PodState {
  podInfo: PodInfo;
  nodeName: string;
  assumed: boolean;
  bindingFinished: boolean;
}

/** The cache's key of a pod (upstream's framework.GetPodKey): its UID, or namespace/name for the rare pod without one. */
export function podCacheKey(pod: Pod): string {
  return pod.metadata?.uid || podKey(pod);
}

export class Cache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly tree = new NodeTree();
  private readonly podStates = new Map<string, PodState>();
  private readonly images = new Map<string, ImageState>();
  private readonly dirty = new Set<string>();
  private nodeSetChanged = true;
  namespaces = new Map<string, Labels>();
  workloads = new Workloads();

  // -------------------------------------------------------------------------------------------
  // Nodes

  addNode(node: Node): NodeInfo {
    const name = node.metadata?.name ?? "";
    let ni = this.nodes.get(name);
    if (ni?.node) return this.updateNode(ni.node, node);
    if (!ni) this.nodes.set(name, (ni = new NodeInfo()));
    ni.setNode(node);
    this.addImages(ni);
    this.tree.add(node);
    this.markDirty(name, true);
    return ni;
  }

  updateNode(oldNode: Node, newNode: Node): NodeInfo {
    const name = newNode.metadata?.name ?? "";
    const ni = this.nodes.get(name);
    if (!ni?.node) return this.addNode(newNode);
    this.removeImages(ni);
    this.tree.update(oldNode, newNode);
    ni.setNode(newNode);
    this.addImages(ni);
    this.markDirty(name, false);
    return ni;
  }

  removeNode(name: string): void {
    const ni = this.nodes.get(name);
    if (!ni?.node) return;
    this.removeImages(ni);
    this.tree.remove(ni.node);
    // Pods may still be on it (they go when their deletion is seen); the node itself is gone.
    if (ni.pods.length === 0) this.nodes.delete(name);
    else ni.node = undefined;
    this.markDirty(name, true);
  }

  nodeNames(): string[] {
    return [...this.nodes.values()].filter((n) => n.node).map((n) => n.name);
  }

  get numNodes(): number {
    return this.tree.numNodes;
  }

  private addImages(ni: NodeInfo): void {
    const states = new Map<string, ImageState>();
    for (const image of ni.node?.status?.images ?? []) {
      for (const name of image.names ?? []) {
        let st = this.images.get(name);
        if (!st) this.images.set(name, (st = { size: image.sizeBytes ?? 0, nodes: new Set() }));
        st.nodes.add(ni.name);
        states.set(name, st);
      }
    }
    ni.imageStates = states;
  }

  private removeImages(ni: NodeInfo): void {
    for (const [name, st] of ni.imageStates) {
      st.nodes.delete(ni.name);
      if (st.nodes.size === 0) this.images.delete(name);
    }
    ni.imageStates = new Map();
  }

  private markDirty(name: string, nodeSet: boolean): void {
    this.dirty.add(name);
    if (nodeSet) this.nodeSetChanged = true;
  }

  // -------------------------------------------------------------------------------------------
  // Pods

  private nodeInfoFor(nodeName: string): NodeInfo {
    let ni = this.nodes.get(nodeName);
    if (!ni) {
      // A pod seen before its node: kept on a node-less NodeInfo, as upstream does.
      ni = new NodeInfo();
      ni.name = nodeName;
      this.nodes.set(nodeName, ni);
    }
    return ni;
  }

  private addPodInfo(pi: PodInfo, nodeName: string, assumed: boolean): void {
    this.nodeInfoFor(nodeName).addPodInfo(pi);
    this.podStates.set(pi.uid || podCacheKey(pi.pod), { podInfo: pi, nodeName, assumed, bindingFinished: false });
    this.markDirty(nodeName, false);
  }

  private removePodInfo(key: string): PodState | undefined {
    const st = this.podStates.get(key);
    if (!st) return undefined;
    const ni = this.nodes.get(st.nodeName);
    if (ni) {
      ni.removePod(st.podInfo.uid);
      if (!ni.node && ni.pods.length === 0) this.nodes.delete(st.nodeName);
      this.markDirty(st.nodeName, false);
    }
    this.podStates.delete(key);
    return st;
  }

  /** A pod the cluster reports bound: confirms an assumed pod, or adds it. */
  addPod(pod: Pod): void {
    const key = podCacheKey(pod);
    const nodeName = pod.spec?.nodeName ?? "";
    const st = this.podStates.get(key);
    if (st?.assumed) {
      if (st.nodeName !== nodeName) {
        // Bound elsewhere than assumed (another scheduler won): move it.
        this.removePodInfo(key);
        this.addPodInfo(st.podInfo.withPod(pod), nodeName, false);
      } else {
        st.assumed = false;
      }
      return;
    }
    if (st) {
      this.updatePod(st.podInfo.pod, pod);
      return;
    }
    this.addPodInfo(new PodInfo(pod), nodeName, false);
  }

  updatePod(oldPod: Pod, newPod: Pod): void {
    const key = podCacheKey(oldPod);
    const st = this.podStates.get(key);
    if (!st || st.assumed) {
      if (!st) this.addPod(newPod);
      return;
    }
    this.removePodInfo(key);
    this.addPodInfo(st.podInfo.withPod(newPod), newPod.spec?.nodeName ?? st.nodeName, false);
  }

  removePod(pod: Pod): PodInfo | undefined {
    return this.removePodInfo(podCacheKey(pod))?.podInfo;
  }

  /** AssumePod: the pod (spec.nodeName set) counts on its node from now on. */
  assumePod(pi: PodInfo): void {
    const key = pi.uid || podCacheKey(pi.pod);
    if (this.podStates.has(key)) throw new Error(`pod ${pi.key} (${key}) is in the cache, so can't be assumed`);
    this.addPodInfo(pi, pi.pod.spec?.nodeName ?? "", true);
  }

  finishBinding(pod: Pod): void {
    const st = this.podStates.get(podCacheKey(pod));
    if (st?.assumed) st.bindingFinished = true;
  }

  /** ForgetPod: binding failed; the assumed pod no longer counts. */
  forgetPod(pod: Pod): void {
    const key = podCacheKey(pod);
    const st = this.podStates.get(key);
    if (st?.assumed) this.removePodInfo(key);
  }

  isAssumedPod(pod: Pod): boolean {
    return !!this.podStates.get(podCacheKey(pod))?.assumed;
  }

  /** The cache's version of a pod (bound or assumed), by key. */
  getPod(pod: Pod): PodInfo | undefined {
    return this.podStates.get(podCacheKey(pod))?.podInfo;
  }

  /** Every pod the cache holds on known nodes. */
  pods(): PodInfo[] {
    return [...this.podStates.values()].map((s) => s.podInfo);
  }

  // -------------------------------------------------------------------------------------------
  // Snapshot

  /** UpdateSnapshot: copies the nodes changed since the last call; rebuilds the lists when needed. */
  updateSnapshot(snapshot: Snapshot): void {
    snapshot.namespaces = this.namespaces;
    snapshot.workloadObjects = this.workloads;
    if (this.dirty.size === 0 && !this.nodeSetChanged) return;
    snapshot.generation++;
    const affinityChanges: NodeInfo[] = [];
    for (const name of this.dirty) {
      snapshot.recordChange(name);
      const ni = this.nodes.get(name);
      const existing = snapshot.nodeInfoMap.get(name);
      if (!ni?.node) {
        if (existing) {
          snapshot.nodeInfoMap.delete(name);
          this.nodeSetChanged = true;
        }
        continue;
      }
      if (!existing) {
        snapshot.nodeInfoMap.set(name, ni.clone());
        this.nodeSetChanged = true;
        continue;
      }
      const hadAffinity = existing.podsWithAffinity.length > 0;
      const hadAnti = existing.podsWithRequiredAntiAffinity.length > 0;
      existing.copyFrom(ni);
      if (hadAffinity !== existing.podsWithAffinity.length > 0 || hadAnti !== existing.podsWithRequiredAntiAffinity.length > 0) affinityChanges.push(existing);
    }
    this.dirty.clear();
    if (this.nodeSetChanged) {
      snapshot.nodeSetVersion++;
      snapshot.nodeInfoList = this.tree
        .list()
        .map((n) => snapshot.nodeInfoMap.get(n))
        .filter((n): n is NodeInfo => !!n);
      this.nodeSetChanged = false;
      snapshot.podsWithAffinityList = snapshot.nodeInfoList.filter((n) => n.podsWithAffinity.length > 0);
      snapshot.podsWithRequiredAntiAffinityList = snapshot.nodeInfoList.filter((n) => n.podsWithRequiredAntiAffinity.length > 0);
      return;
    }
    // A node started or stopped hosting pods with affinity: only it moves in or out of the lists
    // (their order does not matter to the plugins that read them).
    for (const ni of affinityChanges) {
      setMembership(snapshot.podsWithAffinityList, ni, ni.podsWithAffinity.length > 0);
      setMembership(snapshot.podsWithRequiredAntiAffinityList, ni, ni.podsWithRequiredAntiAffinity.length > 0);
    }
  }
}

function setMembership(list: NodeInfo[], ni: NodeInfo, member: boolean): void {
  const i = list.indexOf(ni);
  if (member && i < 0) list.push(ni);
  if (!member && i >= 0) {
    list[i] = list[list.length - 1]!;
    list.pop();
  }
}
