// PodTopologySpread's PreFilter counts, kept between cycles. Counting the matching pods of every
// node on every cycle is what upstream does (in 16 goroutines); here the counts of a given set of
// constraints are kept and, each cycle, only the nodes the snapshot says changed are counted again.
// The result is the same map PreFilter would build from scratch.
import type { SnapshotLister } from "../../framework/interface";
import type { NodeInfo } from "../../model/node-info";
import type { PodInfo } from "../../model/pod-info";
import type { RequiredNodeAffinity } from "../../model/labels";
import { countPodsMatchSelector, matchNodeInclusionPolicies, nodeHasTopologyKeys, type Constraint } from "./common";

/** What one node adds: per constraint, its topology value and matching pods (undefined: not counted). */
type Contribution = Array<{ value: string; count: number } | undefined>;

interface Domain {
  pods: number;
  /** Eligible nodes in the domain: the domain exists while there is one. */
  nodes: number;
}

interface Entry {
  snapshot: SnapshotLister;
  generation: number;
  nodeSetVersion: number;
  perNode: Map<string, Contribution>;
  domains: Array<Map<string, Domain>>;
}

/** The snapshot's change tracking (Snapshot implements it; other listers make the cache rebuild). */
interface ChangeTracking {
  generation: number;
  nodeSetVersion: number;
  changedSince(generation: number): string[] | undefined;
}

function tracking(l: SnapshotLister): ChangeTracking | undefined {
  const t = l as unknown as Partial<ChangeTracking>;
  return typeof t.changedSince === "function" ? (t as ChangeTracking) : undefined;
}

const MAX_ENTRIES = 32;

export class DomainCountCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * Per constraint: topology value → matching pods, over the nodes that have every topology key and
   * that the constraint's inclusion policies admit for this pod.
   */
  counts(lister: SnapshotLister, pod: PodInfo, constraints: readonly Constraint[], required: RequiredNodeAffinity): Map<string, number>[] {
    const key = signature(pod, constraints);
    const t = tracking(lister);
    let entry = this.entries.get(key);
    const changed = entry && t && entry.snapshot === lister && entry.nodeSetVersion === t.nodeSetVersion ? t.changedSince(entry.generation) : undefined;
    const contribution = (ni: NodeInfo | undefined): Contribution | undefined => {
      const node = ni?.node;
      if (!ni || !node || !nodeHasTopologyKeys(ni.labels, constraints)) return undefined;
      return constraints.map((c) =>
        matchNodeInclusionPolicies(c, pod, node, required)
          ? { value: ni.labels[c.topologyKey]!, count: countPodsMatchSelector(ni.pods, c.selector, pod.namespace) }
          : undefined,
      );
    };
    if (!entry || !changed) {
      entry = {
        snapshot: lister,
        generation: t?.generation ?? -1,
        nodeSetVersion: t?.nodeSetVersion ?? -1,
        perNode: new Map(),
        domains: constraints.map(() => new Map()),
      };
      for (const ni of lister.list()) apply(entry, ni.name, contribution(ni), 1);
      this.entries.delete(key);
      this.entries.set(key, entry);
      if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    } else {
      for (const name of new Set(changed)) {
        apply(entry, name, entry.perNode.get(name), -1);
        apply(entry, name, contribution(lister.get(name)), 1);
      }
      entry.generation = t!.generation;
    }
    return entry.domains.map((m) => {
      const out = new Map<string, number>();
      for (const [v, d] of m) out.set(v, d.pods);
      return out;
    });
  }
}

function apply(entry: Entry, node: string, c: Contribution | undefined, sign: 1 | -1): void {
  if (sign < 0) entry.perNode.delete(node);
  if (!c) return;
  if (sign > 0) entry.perNode.set(node, c);
  c.forEach((x, i) => {
    if (!x) return;
    const m = entry.domains[i]!;
    const d = m.get(x.value) ?? { pods: 0, nodes: 0 };
    d.pods += sign * x.count;
    d.nodes += sign;
    if (d.nodes <= 0) m.delete(x.value);
    else m.set(x.value, d);
  });
}

/** What the counts depend on: the constraints, the pod's namespace, and what its inclusion policies read. */
function signature(pod: PodInfo, constraints: readonly Constraint[]): string {
  const honorAffinity = constraints.some((c) => c.nodeAffinityPolicy === "Honor");
  const honorTaints = constraints.some((c) => c.nodeTaintsPolicy === "Honor");
  const spec = pod.pod.spec;
  return JSON.stringify([
    pod.namespace,
    constraints.map((c) => [c.topologyKey, c.selector.key(), c.nodeAffinityPolicy, c.nodeTaintsPolicy]),
    honorAffinity ? [spec?.nodeSelector ?? null, spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null] : null,
    honorTaints ? (spec?.tolerations ?? null) : null,
  ]);
}
