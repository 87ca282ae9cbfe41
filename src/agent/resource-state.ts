// PodResourceState: each pod's container resources by container name, kept in a file under the agent's
// root so that a restarted agent knows them — the kubelet's allocation state checkpoints
// (pkg/kubelet/allocation/state). The agent keeps two, as the kubelet does:
//   allocated_pods_state.json  what the node has admitted for each container (the allocation manager's)
//   actuated_pods_state.json   what was last applied to each container: at its creation, and by each
//                              UpdateContainerResources of an in-place resize (the pod sync's)
// A resize is in progress while the two differ for a running container. A file that cannot be read is
// said and started without: the allocation then falls back to each pod's spec, as on a first start.
import { readFileSync } from "node:fs";
import type { ResourceRequirements } from "kubernetes-types/core/v1";
import { type Logger, writeFileAtomic } from "../util";

export type ContainerResourceMap = Readonly<Record<string, ResourceRequirements>>;

function copy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

export class PodResourceState {
  private readonly pods = new Map<string, Record<string, ResourceRequirements>>();
  /** Goes up with every change (a cached pod status that shows these values is computed again). */
  version = 0;

  /** With no file the state lives in memory only (tests). */
  constructor(
    private readonly file: string | undefined,
    private readonly log?: Logger,
  ) {
    if (!file) return;
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as { pods?: Record<string, Record<string, ResourceRequirements>> };
      for (const [uid, containers] of Object.entries(data?.pods ?? {})) {
        if (containers && typeof containers === "object") this.pods.set(uid, containers);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") log?.warn("resource checkpoint unreadable, starting without it", { path: file, err: e });
    }
  }

  /** The pod's containers' resources, undefined when nothing is recorded for it. */
  pod(uid: string): ContainerResourceMap | undefined {
    return this.pods.get(uid);
  }

  container(uid: string, name: string): ResourceRequirements | undefined {
    return this.pods.get(uid)?.[name];
  }

  setPod(uid: string, containers: ContainerResourceMap): void {
    this.pods.set(uid, copy({ ...containers }));
    this.save();
  }

  setContainer(uid: string, name: string, resources: ResourceRequirements | undefined): void {
    const cur = this.pods.get(uid) ?? {};
    const next = copy(resources ?? {});
    if (JSON.stringify(cur[name]) === JSON.stringify(next)) return;
    this.pods.set(uid, { ...cur, [name]: next });
    this.save();
  }

  remove(uid: string): void {
    if (this.pods.delete(uid)) this.save();
  }

  /** Forgets every pod not in `known` (the kubelet's RemoveOrphanedPods). */
  prune(known: ReadonlySet<string>): void {
    let changed = false;
    for (const uid of [...this.pods.keys()]) if (!known.has(uid)) changed = this.pods.delete(uid) || changed;
    if (changed) this.save();
  }

  private save(): void {
    this.version++;
    if (!this.file) return;
    try {
      writeFileAtomic(this.file, JSON.stringify({ pods: Object.fromEntries(this.pods) }));
    } catch (e) {
      this.log?.warn("cannot keep the resource checkpoint", { path: this.file, err: e });
    }
  }
}
