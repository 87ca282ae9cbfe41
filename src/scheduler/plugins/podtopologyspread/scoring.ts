// PodTopologySpread's PreScore, Score and NormalizeScore (plugins/podtopologyspread/scoring.go): for
// each ScheduleAnyway constraint a node is charged the matching pods of its domain, weighted by
// log(domains + 2), plus maxSkew − 1; normalised so the least charged node scores 100.
import { MAX_NODE_SCORE, type NodeScore } from "../../framework/interface";
import { RequiredNodeAffinity } from "../../model/labels";
import type { NodeInfo } from "../../model/node-info";
import type { PodInfo } from "../../model/pod-info";
import { countPodsMatchSelector, LABEL_HOSTNAME, matchNodeInclusionPolicies, nodeHasTopologyKeys, type Constraint } from "./common";

const INVALID_SCORE = -1;

export interface PreScoreState {
  constraints: readonly Constraint[];
  /** Nodes missing a topology key: scored 0. */
  ignoredNodes: Set<string>;
  /** Per constraint: topology value → matching pods (hostname constraints are counted at Score). */
  topologyValueToPodCounts: Map<string, number>[];
  topologyNormalizingWeight: number[];
}

/** topologyNormalizingWeight: log(size + 2), so the counts of small topologies are not watered down. */
export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

export function scoreForCount(cnt: number, maxSkew: number, tpWeight: number): number {
  return cnt * tpWeight + (maxSkew - 1);
}

/** initPreScoreState + the counting PreScore does over all nodes. */
export function calPreScoreState(
  pod: PodInfo,
  constraints: readonly Constraint[],
  filteredNodes: readonly NodeInfo[],
  allNodes: readonly NodeInfo[],
  requireAllTopologies: boolean,
): PreScoreState {
  const s: PreScoreState = { constraints, ignoredNodes: new Set(), topologyValueToPodCounts: constraints.map(() => new Map()), topologyNormalizingWeight: [] };
  const topoSize = constraints.map(() => 0);
  for (const ni of filteredNodes) {
    if (requireAllTopologies && !nodeHasTopologyKeys(ni.labels, constraints)) {
      s.ignoredNodes.add(ni.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === LABEL_HOSTNAME) return;
      const v = ni.labels[c.topologyKey];
      if (v === undefined) return;
      const counts = s.topologyValueToPodCounts[i]!;
      if (!counts.has(v)) {
        counts.set(v, 0);
        topoSize[i]!++;
      }
    });
  }
  s.topologyNormalizingWeight = constraints.map((c, i) =>
    topologyNormalizingWeight(c.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - s.ignoredNodes.size : topoSize[i]!),
  );
  const required = new RequiredNodeAffinity(pod.pod);
  for (const ni of allNodes) {
    const node = ni.node;
    if (!node) continue;
    if (requireAllTopologies && !nodeHasTopologyKeys(ni.labels, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!matchNodeInclusionPolicies(c, pod, node, required)) return;
      const v = ni.labels[c.topologyKey];
      const counts = s.topologyValueToPodCounts[i]!;
      if (v === undefined || !counts.has(v)) return;
      counts.set(v, counts.get(v)! + countPodsMatchSelector(ni.pods, c.selector, pod.namespace));
    });
  }
  return s;
}

export function scoreNode(s: PreScoreState, pod: PodInfo, nodeInfo: NodeInfo): number {
  if (s.ignoredNodes.has(nodeInfo.name)) return 0;
  let score = 0;
  s.constraints.forEach((c, i) => {
    const v = nodeInfo.labels[c.topologyKey];
    if (v === undefined) return;
    const cnt =
      c.topologyKey === LABEL_HOSTNAME ? countPodsMatchSelector(nodeInfo.pods, c.selector, pod.namespace) : (s.topologyValueToPodCounts[i]!.get(v) ?? 0);
    score += scoreForCount(cnt, c.maxSkew, s.topologyNormalizingWeight[i]!);
  });
  return Math.round(score);
}

/** NormalizeScore: MaxNodeScore × (max + min − score) / max; ignored nodes get 0. */
export function normalize(s: PreScoreState, scores: NodeScore[]): void {
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  for (const sc of scores) {
    if (s.ignoredNodes.has(sc.name)) {
      sc.score = INVALID_SCORE;
      continue;
    }
    if (sc.score < min) min = sc.score;
    if (sc.score > max) max = sc.score;
  }
  for (const sc of scores) {
    if (sc.score === INVALID_SCORE) {
      sc.score = 0;
      continue;
    }
    if (max === 0) {
      sc.score = MAX_NODE_SCORE;
      continue;
    }
    sc.score = Math.trunc((MAX_NODE_SCORE * (max + min - sc.score)) / max);
  }
}
