// The snapshot a scheduling cycle works on (pkg/scheduler/backend/cache/snapshot.go): a copy of every
// node's NodeInfo taken at the start of the cycle, in the node tree's zone-interleaved order, plus
// the lists of nodes that host pods with affinity or with required anti-affinity.
import type { SnapshotLister } from "../framework/interface";
import { Workloads } from "../model/default-selector";
import type { Labels } from "../model/labels";
import type { NodeInfo } from "../model/node-info";

export class Snapshot implements SnapshotLister {
  readonly nodeInfoMap = new Map<string, NodeInfo>();
  nodeInfoList: NodeInfo[] = [];
  podsWithAffinityList: NodeInfo[] = [];
  podsWithRequiredAntiAffinityList: NodeInfo[] = [];
  /** Labels of Namespace objects the cluster input carried. */
  namespaces = new Map<string, Labels>();
  workloadObjects = new Workloads();
  private readonly defaultNamespaceLabels = new Map<string, Labels>();
  /** Bumped whenever the snapshot is updated: the cache's generation it reflects. */
  generation = 0;
  /** Bumped when nodes were added or removed: caches built on the node list start over. */
  nodeSetVersion = 0;
  /** The nodes whose NodeInfo changed, with the generation they changed in, oldest first. */
  private changes: Array<{ generation: number; node: string }> = [];
  private trimmedThrough = 0;

  /** Records that a node changed in the current generation (the cache calls this). */
  recordChange(node: string): void {
    this.changes.push({ generation: this.generation, node });
    // Keep the log bounded; a cache older than what was dropped rebuilds.
    if (this.changes.length > 20_000) {
      const dropped = this.changes.length - 10_000;
      this.trimmedThrough = this.changes[dropped - 1]!.generation;
      this.changes = this.changes.slice(dropped);
    }
  }

  /** The nodes changed after `generation` (repeats possible), or undefined when the log no longer reaches back that far. */
  changedSince(generation: number): string[] | undefined {
    if (this.trimmedThrough > generation) return undefined;
    const out: string[] = [];
    for (let i = this.changes.length - 1; i >= 0; i--) {
      const c = this.changes[i]!;
      if (c.generation <= generation) break;
      out.push(c.node);
    }
    return out;
  }

  list(): readonly NodeInfo[] {
    return this.nodeInfoList;
  }

  get(nodeName: string): NodeInfo | undefined {
    return this.nodeInfoMap.get(nodeName);
  }

  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.podsWithAffinityList;
  }

  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.podsWithRequiredAntiAffinityList;
  }

  numNodes(): number {
    return this.nodeInfoList.length;
  }

  workloads(): Workloads {
    return this.workloadObjects;
  }

  /** Every namespace carries kubernetes.io/metadata.name (the NamespaceDefaultLabelName admission). */
  namespaceLabels(namespace: string): Labels {
    const given = this.namespaces.get(namespace);
    if (given) return given;
    let labels = this.defaultNamespaceLabels.get(namespace);
    if (!labels) this.defaultNamespaceLabels.set(namespace, (labels = Object.freeze({ "kubernetes.io/metadata.name": namespace })));
    return labels;
  }
}
