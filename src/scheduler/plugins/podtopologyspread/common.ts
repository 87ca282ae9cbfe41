// PodTopologySpread's constraints (plugins/podtopologyspread/common.go): the pod's own, or the
// profile's defaults with the selector of what manages the pod; and the node inclusion policies
// (nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore unless set).
import type { Node, TopologySpreadConstraint } from "kubernetes-types/core/v1";
import {
  equalityRequirements,
  findUntoleratedTaint,
  isDoNotScheduleTaint,
  labelSelectorAsSelector,
  type Selector,
  type Labels,
  type RequiredNodeAffinity,
} from "../../model/labels";
import type { PodInfo } from "../../model/pod-info";

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

export const LABEL_HOSTNAME = "kubernetes.io/hostname";
export const LABEL_ZONE = "topology.kubernetes.io/zone";

/** The system defaults (defaultingType System): hostname maxSkew 3, zone maxSkew 5, both ScheduleAnyway. */
export const SYSTEM_DEFAULT_CONSTRAINTS: TopologySpreadConstraint[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: "ScheduleAnyway", maxSkew: 3 },
  { topologyKey: LABEL_ZONE, whenUnsatisfiable: "ScheduleAnyway", maxSkew: 5 },
];

export interface PodTopologySpreadArgs {
  defaultConstraints?: TopologySpreadConstraint[];
  defaultingType?: "System" | "List";
}

export interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  minDomains: number;
  nodeAffinityPolicy: "Honor" | "Ignore";
  nodeTaintsPolicy: "Honor" | "Ignore";
}

/** filterTopologySpreadConstraints: the constraints with this whenUnsatisfiable, matchLabelKeys merged in. */
export function filterConstraints(
  constraints: readonly TopologySpreadConstraint[],
  podLabels: Labels,
  action: "DoNotSchedule" | "ScheduleAnyway",
): Constraint[] {
  const out: Constraint[] = [];
  for (const c of constraints) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = labelSelectorAsSelector(c.labelSelector);
    const keys = c.matchLabelKeys ?? [];
    if (keys.length > 0) {
      const match: Record<string, string> = {};
      for (const k of keys) if (podLabels[k] !== undefined) match[k] = podLabels[k]!;
      if (Object.keys(match).length > 0) selector = selector.and(equalityRequirements(match));
    }
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      minDomains: c.minDomains ?? 1,
      nodeAffinityPolicy: (c.nodeAffinityPolicy as "Honor" | "Ignore" | undefined) ?? "Honor",
      nodeTaintsPolicy: (c.nodeTaintsPolicy as "Honor" | "Ignore" | undefined) ?? "Ignore",
    });
  }
  return out;
}

/** nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key. */
export function nodeHasTopologyKeys(labels: Labels, constraints: readonly Constraint[]): boolean {
  for (const c of constraints) if (labels[c.topologyKey] === undefined) return false;
  return true;
}

/** matchNodeInclusionPolicies. */
export function matchNodeInclusionPolicies(c: Constraint, pod: PodInfo, node: Node, required: RequiredNodeAffinity): boolean {
  if (c.nodeAffinityPolicy === "Honor" && !required.matches(node)) return false;
  if (c.nodeTaintsPolicy === "Honor" && findUntoleratedTaint(node.spec?.taints, pod.pod.spec?.tolerations, isDoNotScheduleTaint)) return false;
  return true;
}

/** countPodsMatchSelector: same namespace, not terminating, labels matching. An empty selector counts nothing. */
export function countPodsMatchSelector(pods: readonly PodInfo[], selector: Selector, namespace: string): number {
  if (selector.isEmpty()) return 0;
  let n = 0;
  for (const p of pods) {
    if (p.namespace !== namespace || p.isTerminating()) continue;
    if (selector.matches(p.labels)) n++;
  }
  return n;
}

export function podLabelsMatchConstraints(constraints: readonly Constraint[], labels: Labels): boolean {
  return constraints.some((c) => c.selector.matches(labels));
}
