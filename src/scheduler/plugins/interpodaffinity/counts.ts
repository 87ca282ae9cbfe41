// Counts per topology pair (topologyToMatchedTermCount / scoreMap): topology key → value → count,
// nested so a lookup for a node costs one probe per topology key in use, not one per node label.
import type { Labels } from "../../model/labels";

export class TopologyCounts {
  private readonly byKey = new Map<string, Map<string, number>>();

  get size(): number {
    let n = 0;
    for (const m of this.byKey.values()) n += m.size;
    return n;
  }

  /** Adds value for the node's value of the topology key (nothing when the node lacks the key). */
  update(nodeLabels: Labels, topologyKey: string, value: number): void {
    const tv = nodeLabels[topologyKey];
    if (tv === undefined) return;
    let m = this.byKey.get(topologyKey);
    if (!m) this.byKey.set(topologyKey, (m = new Map()));
    const n = (m.get(tv) ?? 0) + value;
    // value can be negative (RemovePod): entries that reach zero go, as upstream deletes them.
    if (n === 0) {
      m.delete(tv);
      if (m.size === 0) this.byKey.delete(topologyKey);
    } else {
      m.set(tv, n);
    }
  }

  get(topologyKey: string, value: string): number {
    return this.byKey.get(topologyKey)?.get(value) ?? 0;
  }

  /** The count for the node's value of the key (0 when the node lacks it). */
  forNode(nodeLabels: Labels, topologyKey: string): number {
    const tv = nodeLabels[topologyKey];
    return tv === undefined ? 0 : this.get(topologyKey, tv);
  }

  /** Whether any pair matching one of the node's labels has a positive count. */
  anyPositiveFor(nodeLabels: Labels): boolean {
    for (const [key, m] of this.byKey) {
      const tv = nodeLabels[key];
      if (tv !== undefined && (m.get(tv) ?? 0) > 0) return true;
    }
    return false;
  }

  /** Sum of the counts of every pair the node's labels match (InterPodAffinity's Score). */
  sumFor(nodeLabels: Labels): number {
    let s = 0;
    for (const [key, m] of this.byKey) {
      const tv = nodeLabels[key];
      if (tv !== undefined) s += m.get(tv) ?? 0;
    }
    return s;
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [key, m] of this.byKey) c.byKey.set(key, new Map(m));
    return c;
  }
}
