// Fakes of the eviction manager's seams: a stats provider whose node figures and pod stats a test
// sets, the agent as the manager sees it (active pods, evictions recorded, cleanup a test controls),
// and a node-level reclaim that records its calls and may free what the test says.
import type { Pod } from "kubernetes-types/core/v1";
import type { EvictionStatus, EvictionTarget } from "../../src/eviction/local-storage";
import type { SummarySource } from "../../src/eviction/eviction-manager";
import type { NodeReclaim } from "../../src/eviction/node-reclaim";
import type { PodStats, Summary } from "../../src/stats/types";
import type { Clock } from "../../src/util/clock";
import { apiTime } from "../../src/util/time";

export const GI = 2 ** 30;
export const MI = 2 ** 20;

/** Node figures a test sets; undefined leaves the signal unobserved. */
export interface FakeNodeFigures {
  memory?: { capacity: number; available: number };
  pods?: { capacity: number; available: number };
  nodefs?: { capacity: number; available: number; inodes?: number; inodesFree?: number };
  imagefs?: { capacity: number; available: number; inodes?: number; inodesFree?: number };
  pids?: { max: number; current: number };
}

export class FakeSummary implements SummarySource {
  node: FakeNodeFigures = {};
  pods: PodStats[] = [];
  calls = 0;
  fail: Error | undefined;
  constructor(private readonly clock: Clock) {}

  async get(): Promise<Summary> {
    this.calls++;
    if (this.fail) throw this.fail;
    const time = apiTime(this.clock.now());
    const n = this.node;
    const fs = (f: FakeNodeFigures["nodefs"]) =>
      f && {
        time,
        capacityBytes: f.capacity,
        availableBytes: f.available,
        usedBytes: f.capacity - f.available,
        ...(f.inodes !== undefined ? { inodes: f.inodes, inodesFree: f.inodesFree } : {}),
      };
    return {
      node: {
        nodeName: "n",
        startTime: time,
        ...(n.memory ? { memory: { time, availableBytes: n.memory.available, workingSetBytes: n.memory.capacity - n.memory.available } } : {}),
        ...(n.pods
          ? {
              systemContainers: [
                { name: "pods", startTime: time, memory: { time, availableBytes: n.pods.available, workingSetBytes: n.pods.capacity - n.pods.available } },
              ],
            }
          : {}),
        ...(n.nodefs ? { fs: fs(n.nodefs) } : {}),
        ...(n.imagefs ? { runtime: { imageFs: fs(n.imagefs) } } : {}),
        ...(n.pids ? { rlimit: { time, maxpid: n.pids.max, curproc: n.pids.current } } : {}),
      },
      pods: this.pods,
    };
  }
}

/** Pod stats with a working set per container (the pod's is their sum) and optional disk and process figures. */
export function podStats(
  pod: Pod,
  containers: Record<string, { workingSet?: number; rootfs?: number; logs?: number }>,
  extra: Partial<PodStats> = {},
): PodStats {
  const time = "2026-01-01T00:00:00Z";
  const list = Object.entries(containers).map(([name, c]) => ({
    name,
    startTime: time,
    ...(c.workingSet !== undefined ? { memory: { time, workingSetBytes: c.workingSet } } : {}),
    ...(c.rootfs !== undefined ? { rootfs: { time, usedBytes: c.rootfs } } : {}),
    ...(c.logs !== undefined ? { logs: { time, usedBytes: c.logs } } : {}),
  }));
  const ws = Object.values(containers).reduce((s, c) => s + (c.workingSet ?? 0), 0);
  return {
    podRef: { name: pod.metadata!.name!, namespace: pod.metadata!.namespace ?? "default", uid: pod.metadata!.uid! },
    startTime: time,
    containers: list,
    memory: { time, workingSetBytes: ws },
    ...extra,
  };
}

/** The agent as the eviction manager sees it: active pods, evictions recorded, cleanup when the test says. */
export class FakeEvictionTarget implements EvictionTarget {
  pods: Pod[] = [];
  readonly evictions: { name: string; status: EvictionStatus; grace: number }[] = [];
  readonly cleanedUp = new Set<string>();
  /** When true, an evicted pod is cleaned up at once. */
  cleanupAtOnce = true;
  activePods(): Pod[] {
    return [...this.pods];
  }
  evictPod(p: Pod, status: EvictionStatus, grace: number): boolean {
    this.evictions.push({ name: p.metadata!.name!, status, grace });
    this.pods = this.pods.filter((x) => x !== p);
    if (this.cleanupAtOnce) this.cleanedUp.add(p.metadata!.uid!);
    return true;
  }
  podCleanedUp(p: Pod): boolean {
    return this.cleanedUp.has(p.metadata!.uid!);
  }
}

/** Records the reclaim calls; `onReclaim` lets a test free space as the GC would. */
export class FakeNodeReclaim implements NodeReclaim {
  readonly calls: string[] = [];
  onReclaim: (what: "containers" | "images") => void = () => {};
  readonly images = {
    deleteUnusedImages: async () => {
      this.calls.push("images");
      this.onReclaim("images");
    },
  };
  readonly containers = {
    deleteAllUnusedContainers: async () => {
      this.calls.push("containers");
      this.onReclaim("containers");
    },
  };
}
