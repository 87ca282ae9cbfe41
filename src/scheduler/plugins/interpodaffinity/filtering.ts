// InterPodAffinity's PreFilter and Filter (plugins/interpodaffinity/filtering.go). PreFilter counts,
// per topology pair: existing pods whose required anti-affinity matches the incoming pod, and
// existing pods matching the incoming pod's required affinity (all terms) and anti-affinity terms.
// Filter then checks a node's pairs against those counts.
import type { StateData } from "../../framework/cycle-state";
import type { SnapshotLister } from "../../framework/interface";
import { Code, Status, type MaybeStatus } from "../../framework/status";
import type { Labels } from "../../model/labels";
import type { NodeInfo } from "../../model/node-info";
import { termMatches, type AffinityTerm, type PodInfo } from "../../model/pod-info";
import { TopologyCounts } from "./counts";

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

/** podMatchesAllAffinityTerms: there is at least one term and the pod matches every one. */
export function podMatchesAllTerms(terms: readonly AffinityTerm[], pod: PodInfo, nsLabels: Labels): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!termMatches(t, pod, nsLabels)) return false;
  return true;
}

function addAntiAffinity(m: TopologyCounts, terms: readonly AffinityTerm[], pod: PodInfo, nsLabels: Labels, nodeLabels: Labels, value: number): void {
  for (const t of terms) if (termMatches(t, pod, nsLabels)) m.update(nodeLabels, t.topologyKey, value);
}

function addAffinity(m: TopologyCounts, terms: readonly AffinityTerm[], pod: PodInfo, nsLabels: Labels, nodeLabels: Labels, value: number): void {
  if (!podMatchesAllTerms(terms, pod, nsLabels)) return;
  for (const t of terms) m.update(nodeLabels, t.topologyKey, value);
}

export class PreFilterState implements StateData {
  constructor(
    readonly podInfo: PodInfo,
    /** Existing pods' required anti-affinity terms matching the incoming pod. */
    readonly existingAntiAffinityCounts: TopologyCounts,
    /** Existing pods matching all the incoming pod's required affinity terms. */
    readonly affinityCounts: TopologyCounts,
    /** Existing pods matching the incoming pod's required anti-affinity terms. */
    readonly antiAffinityCounts: TopologyCounts,
    private readonly lister: SnapshotLister,
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.podInfo, this.existingAntiAffinityCounts.clone(), this.affinityCounts.clone(), this.antiAffinityCounts.clone(), this.lister);
  }

  /** updateWithPod (AddPod/RemovePod). */
  updateWithPod(pod: PodInfo, nodeLabels: Labels, multiplier: number): void {
    const incomingNs = this.lister.namespaceLabels(this.podInfo.namespace);
    addAntiAffinity(this.existingAntiAffinityCounts, pod.requiredAntiAffinityTerms, this.podInfo, incomingNs, nodeLabels, multiplier);
    const ns = this.lister.namespaceLabels(pod.namespace);
    addAffinity(this.affinityCounts, this.podInfo.requiredAffinityTerms, pod, ns, nodeLabels, multiplier);
    addAntiAffinity(this.antiAffinityCounts, this.podInfo.requiredAntiAffinityTerms, pod, ns, nodeLabels, multiplier);
  }
}

export function calPreFilterState(pod: PodInfo, lister: SnapshotLister): PreFilterState {
  const incomingNs = lister.namespaceLabels(pod.namespace);
  const existing = new TopologyCounts();
  for (const ni of lister.havePodsWithRequiredAntiAffinityList()) {
    for (const ep of ni.podsWithRequiredAntiAffinity) addAntiAffinity(existing, ep.requiredAntiAffinityTerms, pod, incomingNs, ni.labels, 1);
  }
  const affinity = new TopologyCounts();
  const anti = new TopologyCounts();
  if (pod.requiredAffinityTerms.length > 0 || pod.requiredAntiAffinityTerms.length > 0) {
    for (const ni of lister.list()) {
      for (const ep of ni.pods) {
        const ns = lister.namespaceLabels(ep.namespace);
        addAffinity(affinity, pod.requiredAffinityTerms, ep, ns, ni.labels, 1);
        addAntiAffinity(anti, pod.requiredAntiAffinityTerms, ep, ns, ni.labels, 1);
      }
    }
  }
  return new PreFilterState(pod, existing, affinity, anti, lister);
}

/** satisfyPodAffinity: every term's pair has a matching pod — or no pod matches anywhere and the pod matches its own terms. */
function satisfyPodAffinity(s: PreFilterState, ni: NodeInfo, nsLabels: Labels): boolean {
  let podsExist = true;
  for (const t of s.podInfo.requiredAffinityTerms) {
    const v = ni.labels[t.topologyKey];
    if (v === undefined) return false;
    if (s.affinityCounts.get(t.topologyKey, v) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // The first pod of a group with affinity to itself would otherwise wait forever.
  return s.affinityCounts.size === 0 && podMatchesAllTerms(s.podInfo.requiredAffinityTerms, s.podInfo, nsLabels);
}

function satisfyPodAntiAffinity(s: PreFilterState, ni: NodeInfo): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  for (const t of s.podInfo.requiredAntiAffinityTerms) if (s.antiAffinityCounts.forNode(ni.labels, t.topologyKey) > 0) return false;
  return true;
}

export function filterNode(s: PreFilterState, ni: NodeInfo, nsLabels: Labels): MaybeStatus {
  if (!satisfyPodAffinity(s, ni, nsLabels)) return new Status(Code.UnschedulableAndUnresolvable, [ERR_REASON_AFFINITY]);
  if (!satisfyPodAntiAffinity(s, ni)) {
    return new Status(Code.Unschedulable, [ERR_REASON_ANTI_AFFINITY]).withDetail(
      `pods matching the pod's anti-affinity run in ${s.podInfo.requiredAntiAffinityTerms.map((t) => `${t.topologyKey}=${ni.labels[t.topologyKey] ?? "?"}`).join(", ")}`,
    );
  }
  if (s.existingAntiAffinityCounts.size > 0 && s.existingAntiAffinityCounts.anyPositiveFor(ni.labels)) {
    return new Status(Code.Unschedulable, [ERR_REASON_EXISTING_ANTI_AFFINITY]);
  }
  return undefined;
}
