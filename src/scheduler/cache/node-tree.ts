// The node tree (pkg/scheduler/backend/cache/node_tree.go): nodes grouped by zone, listed round-robin
// across zones so that the nodes a cycle looks at first are spread over zones.
import type { Node } from "kubernetes-types/core/v1";

/** utilnode.GetZoneKey: region and zone (new labels, else the beta ones), "" when neither is set. */
export function zoneKey(node: Node): string {
  const l = node.metadata?.labels ?? {};
  const zone = l["topology.kubernetes.io/zone"] ?? l["failure-domain.beta.kubernetes.io/zone"] ?? "";
  const region = l["topology.kubernetes.io/region"] ?? l["failure-domain.beta.kubernetes.io/region"] ?? "";
  if (zone === "" && region === "") return "";
  return `${region}:\x00:${zone}`;
}

export class NodeTree {
  private readonly tree = new Map<string, string[]>();
  private readonly zones: string[] = [];
  private readonly names = new Set<string>();

  get numNodes(): number {
    return this.names.size;
  }

  add(node: Node): void {
    const zone = zoneKey(node);
    const name = node.metadata?.name ?? "";
    let names = this.tree.get(zone);
    if (!names) {
      names = [];
      this.tree.set(zone, names);
      this.zones.push(zone);
    }
    if (this.names.has(name)) return;
    names.push(name);
    this.names.add(name);
  }

  remove(node: Node): void {
    const zone = zoneKey(node);
    const names = this.tree.get(zone);
    const name = node.metadata?.name ?? "";
    const i = names?.indexOf(name) ?? -1;
    if (!names || i < 0) return;
    // Swap with the last, as upstream does.
    names[i] = names[names.length - 1]!;
    names.pop();
    this.names.delete(name);
    if (names.length === 0) {
      this.tree.delete(zone);
      this.zones.splice(this.zones.indexOf(zone), 1);
    }
  }

  update(oldNode: Node, newNode: Node): void {
    if (zoneKey(oldNode) === zoneKey(newNode)) return;
    this.remove(oldNode);
    this.add(newNode);
  }

  /** Node names, one zone after another in turn. */
  list(): string[] {
    const out: string[] = [];
    for (let i = 0; out.length < this.names.size; i++) {
      for (const zone of this.zones) {
        const names = this.tree.get(zone)!;
        if (i < names.length) out.push(names[i]!);
      }
    }
    return out;
  }
}
