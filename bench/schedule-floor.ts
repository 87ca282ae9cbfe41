// The floor of `make bench-schedule`: the least work any scheduler must do to place a pod — read its
// requests, find nodes where they fit (NodeResourcesFit's filter: cpu, memory, pod count against
// allocatable minus what is already there) and pick the best by one score (NodeResourcesFit's default
// LeastAllocated: the mean of the free cpu and memory fractions after placing it), then count the pod
// on that node. No queue, no framework, no other plugins, no constraints: a topology spread or an
// anti-affinity is ignored, so the floor of those shapes is the same work as SchedulingBasic's.
// It looks at as many nodes as kube-scheduler does (numFeasibleNodesToFind, from a start index that
// rotates between pods, schedule_one.go), so our scheduler and the floor search the same amount;
// node allocatables are parsed once, as any scheduler caches its nodes.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { parseQuantity } from "../src/api/quantity";

export class FloorScheduler {
  private readonly names: string[];
  private readonly index = new Map<string, number>();
  private readonly allocCpu: Float64Array;
  private readonly allocMem: Float64Array;
  private readonly allocPods: Float64Array;
  private readonly usedCpu: Float64Array;
  private readonly usedMem: Float64Array;
  private readonly usedPods: Float64Array;
  private nextStart = 0;

  /** numToFind: how many feasible nodes to score before choosing (numFeasibleNodesToFind for these nodes). */
  constructor(
    nodes: readonly Node[],
    private readonly numToFind: number,
  ) {
    const n = nodes.length;
    this.names = nodes.map((node) => node.metadata!.name!);
    this.names.forEach((name, i) => this.index.set(name, i));
    this.allocCpu = new Float64Array(n);
    this.allocMem = new Float64Array(n);
    this.allocPods = new Float64Array(n);
    this.usedCpu = new Float64Array(n);
    this.usedMem = new Float64Array(n);
    this.usedPods = new Float64Array(n);
    nodes.forEach((node, i) => {
      const a = node.status?.allocatable ?? {};
      this.allocCpu[i] = a.cpu !== undefined ? parseQuantity(a.cpu).milli() : 0;
      this.allocMem[i] = a.memory !== undefined ? parseQuantity(a.memory).value() : 0;
      this.allocPods[i] = a.pods !== undefined ? parseQuantity(a.pods).value() : 0;
    });
  }

  /** A pod already on its node (spec.nodeName): counted there. */
  addBound(pod: Pod): void {
    const i = this.index.get(pod.spec?.nodeName ?? "");
    if (i === undefined) throw new Error(`floor: pod ${pod.metadata?.name} is bound to unknown node ${pod.spec?.nodeName}`);
    const [cpu, mem] = requests(pod);
    this.usedCpu[i]! += cpu;
    this.usedMem[i]! += mem;
    this.usedPods[i]! += 1;
  }

  /** Places a pending pod: its node's name, or undefined when none fits. */
  schedule(pod: Pod): string | undefined {
    const [cpu, mem] = requests(pod);
    const n = this.names.length;
    let best = -1;
    let bestScore = -1;
    let found = 0;
    let examined = 0;
    for (; examined < n && found < this.numToFind; examined++) {
      const i = (this.nextStart + examined) % n;
      const freeCpu = this.allocCpu[i]! - this.usedCpu[i]! - cpu;
      const freeMem = this.allocMem[i]! - this.usedMem[i]! - mem;
      if (freeCpu < 0 || freeMem < 0 || this.usedPods[i]! + 1 > this.allocPods[i]!) continue;
      found++;
      const score = ((freeCpu * 100) / this.allocCpu[i]! + (freeMem * 100) / this.allocMem[i]!) / 2;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    this.nextStart = (this.nextStart + examined) % n;
    if (best < 0) return undefined;
    this.usedCpu[best]! += cpu;
    this.usedMem[best]! += mem;
    this.usedPods[best]! += 1;
    return this.names[best];
  }
}

/** The pod's cpu (millicores) and memory (bytes) requests: its containers' sum, as computePodResourceRequest does for pods without init containers. */
function requests(pod: Pod): [number, number] {
  let cpu = 0;
  let mem = 0;
  for (const c of pod.spec?.containers ?? []) {
    const r = c.resources?.requests;
    if (r?.cpu !== undefined) cpu += parseQuantity(r.cpu).milli();
    if (r?.memory !== undefined) mem += parseQuantity(r.memory).value();
  }
  return [cpu, mem];
}
