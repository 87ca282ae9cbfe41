// PodResourceState: each pod's container resources by container name, kept in a file under the agent's
// root so that a restarted agent knows them — the kubelet's allocation state checkpoints
// (pkg/kubelet/allocation/state). The agent keeps two, as the kubelet does:
//   allocated_pods_state.json  what the node has admitted for each container (the allocation manager's)
//   actuated_pods_state.json   what was last applied to each container: at its creation, and by each
//                              UpdateContainerResources of an in-place resize (the pod sync's)
// A resize is in progress while the two differ for a running container. A file that cannot be read is
// said and started without (util PodRecords): the allocation then falls back to each pod's spec, as on a
// first start; an entry that is not a container → {requests, limits} of quantity strings is dropped.
import type { ResourceRequirements } from "kubernetes-types/core/v1";
import { type Logger, PodRecords } from "../util";

export type ContainerResourceMap = Readonly<Record<string, ResourceRequirements>>;

function copy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A resource list as the file has it: names to quantity strings, nothing else. */
function isResourceList(v: unknown): v is Record<string, string> {
  return !!v && typeof v === "object" && !Array.isArray(v) && Object.values(v).every((q) => typeof q === "string");
}

/** One pod's entry as read from the file, or undefined when it is not a map of container resources. */
function decodeContainers(raw: unknown): Record<string, ResourceRequirements> | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const out: Record<string, ResourceRequirements> = {};
  for (const [name, r] of Object.entries(raw)) {
    if (!r || typeof r !== "object" || Array.isArray(r)) return undefined;
    const { requests, limits } = r as { requests?: unknown; limits?: unknown };
    if ((requests !== undefined && !isResourceList(requests)) || (limits !== undefined && !isResourceList(limits))) return undefined;
    out[name] = { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
  }
  return out;
}

export class PodResourceState {
  private readonly pods: PodRecords<Record<string, ResourceRequirements>>;
  /** Goes up with every change (a cached pod status that shows these values is computed again). */
  version = 0;

  /** With no file the state lives in memory only (tests). */
  constructor(file: string | undefined, log?: Logger) {
    this.pods = new PodRecords(file, { what: "resource checkpoint", decode: decodeContainers, ...(log ? { log } : {}) });
  }

  /** The pod's containers' resources, undefined when nothing is recorded for it. */
  pod(uid: string): ContainerResourceMap | undefined {
    return this.pods.get(uid);
  }

  container(uid: string, name: string): ResourceRequirements | undefined {
    return this.pods.get(uid)?.[name];
  }

  setPod(uid: string, containers: ContainerResourceMap): void {
    this.version++;
    this.pods.set(uid, copy({ ...containers }));
  }

  setContainer(uid: string, name: string, resources: ResourceRequirements | undefined): void {
    const cur = this.pods.get(uid) ?? {};
    const next = copy(resources ?? {});
    if (JSON.stringify(cur[name]) === JSON.stringify(next)) return;
    this.version++;
    this.pods.set(uid, { ...cur, [name]: next });
  }

  remove(uid: string): void {
    if (this.pods.delete(uid)) this.version++;
  }

  /** Forgets every pod not in `known` (the kubelet's RemoveOrphanedPods). */
  prune(known: ReadonlySet<string>): void {
    if (this.pods.prune(known)) this.version++;
  }
}
