// Pods nominated to nodes by preemption (scheduling_queue.go nominator): they are not bound yet, but
// filters count the ones of equal or higher priority on their node so that other pods do not take
// the room freed for them.
import type { PodInfo } from "../model/pod-info";

/** How a scheduling attempt changes the pod's nomination: override (to a node, or "" to clear) or leave it. */
export type NominatingInfo = { mode: "override"; nodeName: string } | { mode: "noop" };

const NONE: readonly PodInfo[] = Object.freeze([]);

export class Nominator {
  private readonly byNode = new Map<string, string[]>();
  private readonly nodeOf = new Map<string, string>();
  private readonly infos = new Map<string, PodInfo>();

  constructor(private readonly current: (uid: string) => PodInfo | undefined) {}

  /** addNominatedPod: with noop, the pod's own status.nominatedNodeName decides. */
  add(pi: PodInfo, info: NominatingInfo = { mode: "noop" }): void {
    this.delete(pi.uid);
    const nodeName = info.mode === "override" ? info.nodeName : (pi.pod.status?.nominatedNodeName ?? "");
    if (!nodeName || pi.pod.spec?.nodeName) return;
    this.nodeOf.set(pi.uid, nodeName);
    this.infos.set(pi.uid, pi);
    const list = this.byNode.get(nodeName) ?? [];
    if (!list.includes(pi.uid)) list.push(pi.uid);
    this.byNode.set(nodeName, list);
  }

  delete(uid: string): void {
    const node = this.nodeOf.get(uid);
    if (node === undefined) return;
    this.nodeOf.delete(uid);
    this.infos.delete(uid);
    const list = (this.byNode.get(node) ?? []).filter((u) => u !== uid);
    if (list.length === 0) this.byNode.delete(node);
    else this.byNode.set(node, list);
  }

  /** updateNominatedPod: keeps the nomination unless the new pod says otherwise. */
  update(oldUID: string, pi: PodInfo): void {
    const node = this.nodeOf.get(oldUID);
    this.delete(oldUID);
    const nominated = pi.pod.status?.nominatedNodeName;
    if (!nominated && node) this.add(pi, { mode: "override", nodeName: node });
    else this.add(pi);
  }

  /** The pods nominated to the node, as the queue currently holds them. */
  podsForNode(nodeName: string): readonly PodInfo[] {
    const uids = this.byNode.get(nodeName);
    if (!uids) return NONE;
    const out: PodInfo[] = [];
    for (const uid of uids) {
      const pi = this.current(uid) ?? this.infos.get(uid);
      if (pi) out.push(pi);
    }
    return out;
  }
}
