// InterPodAffinity's PreScore, Score and NormalizeScore (plugins/interpodaffinity/scoring.go): each
// topology pair gets the weights of the preferred (anti-)affinity terms — the incoming pod's matched
// by existing pods, and existing pods' matched by the incoming pod, plus hardPodAffinityWeight for
// existing pods' required affinity; a node scores the sum for its pairs, min–max normalised.
import { MAX_NODE_SCORE, type NodeScore, type SnapshotLister } from "../../framework/interface";
import type { Labels } from "../../model/labels";
import type { NodeInfo } from "../../model/node-info";
import { termMatches, type AffinityTerm, type PodInfo, type WeightedAffinityTerm } from "../../model/pod-info";
import { TopologyCounts } from "./counts";

function processTerm(m: TopologyCounts, term: AffinityTerm, weight: number, pod: PodInfo, nsLabels: Labels, nodeLabels: Labels, multiplier: number): void {
  if (termMatches(term, pod, nsLabels)) m.update(nodeLabels, term.topologyKey, weight * multiplier);
}

function processTerms(m: TopologyCounts, terms: readonly WeightedAffinityTerm[], pod: PodInfo, nsLabels: Labels, nodeLabels: Labels, multiplier: number): void {
  for (const t of terms) processTerm(m, t, t.weight, pod, nsLabels, nodeLabels, multiplier);
}

/** processExistingPod. */
function processExistingPod(
  m: TopologyCounts,
  incoming: PodInfo,
  existing: PodInfo,
  node: NodeInfo,
  lister: SnapshotLister,
  hardPodAffinityWeight: number,
): void {
  if (Object.keys(node.labels).length === 0) return;
  const existingNs = lister.namespaceLabels(existing.namespace);
  const incomingNs = lister.namespaceLabels(incoming.namespace);
  processTerms(m, incoming.preferredAffinityTerms, existing, existingNs, node.labels, 1);
  processTerms(m, incoming.preferredAntiAffinityTerms, existing, existingNs, node.labels, -1);
  if (hardPodAffinityWeight > 0) for (const t of existing.requiredAffinityTerms) processTerm(m, t, hardPodAffinityWeight, incoming, incomingNs, node.labels, 1);
  processTerms(m, existing.preferredAffinityTerms, incoming, incomingNs, node.labels, 1);
  processTerms(m, existing.preferredAntiAffinityTerms, incoming, incomingNs, node.labels, -1);
}

/**
 * The topology scores; undefined when there is nothing to score (PreScore's Skip). Unless the
 * incoming pod has preferred terms, only nodes hosting pods with affinity matter.
 */
export function calTopologyScore(
  pod: PodInfo,
  lister: SnapshotLister,
  hardPodAffinityWeight: number,
  ignorePreferredTermsOfExistingPods: boolean,
): TopologyCounts | undefined {
  const hasConstraints = pod.preferredAffinityTerms.length > 0 || pod.preferredAntiAffinityTerms.length > 0;
  if (ignorePreferredTermsOfExistingPods && !hasConstraints) return undefined;
  const nodes = hasConstraints ? lister.list() : lister.havePodsWithAffinityList();
  const m = new TopologyCounts();
  for (const ni of nodes) {
    const pods = hasConstraints ? ni.pods : ni.podsWithAffinity;
    for (const ep of pods) processExistingPod(m, pod, ep, ni, lister, hardPodAffinityWeight);
  }
  return m.size === 0 ? undefined : m;
}

/** NormalizeScore: (score − min) / (max − min) × 100, truncated; all 0 when every node scored the same. */
export function normalize(scores: NodeScore[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    if (s.score > max) max = s.score;
    if (s.score < min) min = s.score;
  }
  const diff = max - min;
  for (const s of scores) s.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((s.score - min) / diff)) : 0;
}
