// PodTopologySpread's PreFilter and Filter (plugins/podtopologyspread/filtering.go): for each
// DoNotSchedule constraint, count the matching pods per topology domain over the eligible nodes;
// a node passes when its domain's count + 1 (if the pod matches itself) − the global minimum ≤ maxSkew.
import type { StateData } from "../../framework/cycle-state";
import type { SnapshotLister } from "../../framework/interface";
import { Code, Status, type MaybeStatus } from "../../framework/status";
import { RequiredNodeAffinity } from "../../model/labels";
import type { NodeInfo } from "../../model/node-info";
import type { PodInfo } from "../../model/pod-info";
import type { DomainCountCache } from "./domain-counts";
import { ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, matchNodeInclusionPolicies, nodeHasTopologyKeys, type Constraint } from "./common";

const MAX_INT32 = 2 ** 31 - 1;

export class PreFilterState implements StateData {
  constructor(
    readonly constraints: readonly Constraint[],
    /** Per constraint: topology value → matching pods. */
    readonly tpValueToMatchNum: Map<string, number>[],
    readonly minMatchNum: number[],
    /** Per constraint: how many domains hold exactly k matching pods (keeps the minimum exact under ±1 updates). */
    readonly domainsAtCount: Map<number, number>[],
  ) {}

  static empty(): PreFilterState {
    return new PreFilterState([], [], [], []);
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.tpValueToMatchNum.map((m) => new Map(m)),
      this.minMatchNum.slice(),
      this.domainsAtCount.map((m) => new Map(m)),
    );
  }

  /** The global minimum, or 0 when there are fewer eligible domains than minDomains. */
  minMatch(i: number): number {
    if (this.tpValueToMatchNum[i]!.size < this.constraints[i]!.minDomains) return 0;
    return this.minMatchNum[i]!;
  }

  /** updateMin: after one domain moved from `old` to `cur` (|cur − old| = 1). */
  private updateMin(i: number, old: number, cur: number): void {
    const hist = this.domainsAtCount[i]!;
    const left = (hist.get(old) ?? 0) - 1;
    if (left <= 0) hist.delete(old);
    else hist.set(old, left);
    hist.set(cur, (hist.get(cur) ?? 0) + 1);
    if (cur < this.minMatchNum[i]!) this.minMatchNum[i] = cur;
    else if (old === this.minMatchNum[i] && !hist.has(old)) this.minMatchNum[i] = cur;
  }

  /** updateWithPod (AddPod/RemovePod during preemption and nominated-pod filtering). */
  updateWithPod(updated: PodInfo, preemptor: PodInfo, nodeInfo: NodeInfo, delta: 1 | -1): void {
    const node = nodeInfo.node;
    if (updated.namespace !== preemptor.namespace || !node) return;
    if (!nodeHasTopologyKeys(nodeInfo.labels, this.constraints)) return;
    const required = new RequiredNodeAffinity(preemptor.pod);
    this.constraints.forEach((c, i) => {
      if (!c.selector.matches(updated.labels)) return;
      if (!matchNodeInclusionPolicies(c, preemptor, node, required)) return;
      const v = nodeInfo.labels[c.topologyKey]!;
      const old = this.tpValueToMatchNum[i]!.get(v) ?? 0;
      this.tpValueToMatchNum[i]!.set(v, old + delta);
      this.updateMin(i, old, old + delta);
    });
  }
}

/** calPreFilterState: matching pods per domain, counted over the nodes the pod's inclusion policies admit. */
export function calPreFilterState(pod: PodInfo, constraints: readonly Constraint[], lister: SnapshotLister, cache: DomainCountCache): PreFilterState {
  if (constraints.length === 0) return PreFilterState.empty();
  const tp = cache.counts(lister, pod, constraints, new RequiredNodeAffinity(pod.pod));
  const min: number[] = [];
  const hist: Map<number, number>[] = [];
  tp.forEach((m, i) => {
    let lo = MAX_INT32;
    const h = new Map<number, number>();
    for (const n of m.values()) {
      h.set(n, (h.get(n) ?? 0) + 1);
      if (n < lo) lo = n;
    }
    min[i] = lo;
    hist[i] = h;
  });
  return new PreFilterState(constraints, tp, min, hist);
}

export function filterNode(s: PreFilterState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus {
  for (let i = 0; i < s.constraints.length; i++) {
    const c = s.constraints[i]!;
    const value = nodeInfo.labels[c.topologyKey];
    if (value === undefined) {
      return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_NODE_LABEL_NOT_MATCH]).withDetail(`the node has no ${c.topologyKey} label`);
    }
    const minMatch = s.minMatch(i);
    const self = c.selector.matches(pod.labels) ? 1 : 0;
    const matchNum = s.tpValueToMatchNum[i]!.get(value) ?? 0;
    const skew = matchNum + self - minMatch;
    if (skew > c.maxSkew) {
      return new Status(Code.Unschedulable, [ERR_REASON_CONSTRAINTS_NOT_MATCH]).withDetail(
        `${c.topologyKey}=${value}: ${matchNum} matching pod(s)${self ? " + this one" : ""} − global minimum ${minMatch} = skew ${skew} > maxSkew ${c.maxSkew}`,
      );
    }
  }
  return undefined;
}
