// DefaultPreemption (plugins/defaultpreemption, framework/preemption): when no node fits, find nodes
// where evicting lower-priority pods would make room, keep the smallest set of victims per node
// (reprieving the most important first), pick the node whose victims matter least, evict them, and
// nominate the node for the pod. Its messages join the FailedScheduling message after "preemption:".
import type { Pod } from "kubernetes-types/core/v1";
import { Diagnosis, fitErrorMessage, type NodeToStatus } from "../framework/diagnosis";
import type { Handle, PostFilterPlugin, PostFilterResult } from "../framework/interface";
import type { CycleState } from "../framework/cycle-state";
import { asStatus, Code, Status, type MaybeStatus } from "../framework/status";
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import { intArg } from "./helper";
import { Names } from "./names";

export interface DefaultPreemptionArgs {
  minCandidateNodesPercentage?: number;
  minCandidateNodesAbsolute?: number;
}

export const MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling";
export const MSG_NO_VICTIMS = "No preemption victims found for incoming pod";

export interface Candidate {
  name: string;
  /** Most important first. */
  victims: PodInfo[];
  numPDBViolations: number;
}

/** util.MoreImportantPod: higher priority, then the one that started earlier. */
export function moreImportantPod(a: PodInfo, b: PodInfo, now: number): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  return (a.startTime() ?? now) < (b.startTime() ?? now);
}

/** Evicted by the scheduler and still terminating (DisruptionTarget condition, reason PreemptionByScheduler). */
function terminatingByPreemption(p: Pod): boolean {
  if (!p.metadata?.deletionTimestamp) return false;
  return (p.status?.conditions ?? []).some((c) => c.type === "DisruptionTarget" && c.reason === "PreemptionByScheduler" && c.status === "True");
}

export class DefaultPreemption implements PostFilterPlugin {
  readonly name = Names.DefaultPreemption;
  private readonly args: Required<DefaultPreemptionArgs>;

  constructor(
    private readonly handle: Handle,
    args: DefaultPreemptionArgs = {},
  ) {
    this.args = {
      minCandidateNodesPercentage: intArg("minCandidateNodesPercentage", args.minCandidateNodesPercentage, 10, 0, 100),
      minCandidateNodesAbsolute: intArg("minCandidateNodesAbsolute", args.minCandidateNodesAbsolute, 100, 0, Infinity),
    };
    if (this.args.minCandidateNodesPercentage === 0 && this.args.minCandidateNodesAbsolute === 0)
      throw new Error("minCandidateNodesPercentage and minCandidateNodesAbsolute cannot both be zero");
  }

  postFilter(state: CycleState, pod: PodInfo, statuses: NodeToStatus): { result?: PostFilterResult; status: MaybeStatus } {
    const out = this.preempt(state, pod, statuses);
    const msg = out.status?.message() ?? "";
    if (msg) return { result: out.result, status: new Status(out.status!.code, [`preemption: ${msg}`]) };
    return out;
  }

  /** PodEligibleToPreemptOthers. */
  eligible(pod: PodInfo, statuses: NodeToStatus): { ok: boolean; message: string } {
    if (pod.pod.spec?.preemptionPolicy === "Never") return { ok: false, message: "not eligible due to preemptionPolicy=Never." };
    const nominated = pod.pod.status?.nominatedNodeName;
    if (nominated) {
      // A nominated node that no longer fits at all: try preempting again.
      if (statuses.get(nominated).code === Code.UnschedulableAndUnresolvable) return { ok: true, message: "" };
      const ni = this.handle.snapshot().get(nominated);
      if (ni?.pods.some((p) => p.priority < pod.priority && terminatingByPreemption(p.pod))) {
        return { ok: false, message: "not eligible due to a terminating pod on the nominated node." };
      }
    }
    return { ok: true, message: "" };
  }

  private preempt(state: CycleState, pod: PodInfo, statuses: NodeToStatus): { result?: PostFilterResult; status: MaybeStatus } {
    const e = this.eligible(pod, statuses);
    if (!e.ok) return { status: new Status(Code.Unschedulable, [e.message]) };
    const all = this.handle.snapshot().list();
    if (all.length === 0) return { status: asStatus(new Error("no nodes available")) };
    const { candidates, nodeStatuses } = this.findCandidates(state, all, pod, statuses);
    if (candidates.length === 0) {
      const d = new Diagnosis();
      d.nodeToStatus = nodeStatuses;
      return { result: { nominatedNodeName: "" }, status: new Status(Code.Unschedulable, [fitErrorMessage(all.length, d)]) };
    }
    const best = this.selectCandidate(candidates);
    this.prepareCandidate(best, pod);
    return { result: { nominatedNodeName: best.name, victims: best.victims }, status: new Status(Code.Success) };
  }

  /** calculateNumCandidates: 10% of the nodes, at least 100, at most all. */
  numCandidates(numNodes: number): number {
    let n = Math.trunc((numNodes * this.args.minCandidateNodesPercentage) / 100);
    if (n < this.args.minCandidateNodesAbsolute) n = this.args.minCandidateNodesAbsolute;
    return Math.min(n, numNodes);
  }

  findCandidates(state: CycleState, all: readonly NodeInfo[], pod: PodInfo, statuses: NodeToStatus): { candidates: Candidate[]; nodeStatuses: NodeToStatus } {
    const potential: NodeInfo[] = [];
    const unresolvable = new Map<string, Status>();
    for (const ni of all) {
      // nodesWherePreemptionMightHelp: only nodes rejected as Unschedulable are worth a try.
      if (statuses.get(ni.name).code === Code.UnschedulableAndUnresolvable)
        unresolvable.set(ni.name, new Status(Code.UnschedulableAndUnresolvable, [MSG_NOT_HELPFUL]));
      else potential.push(ni);
    }
    const nodeStatuses = new Diagnosis().nodeToStatus;
    let candidates: Candidate[] = [];
    if (potential.length > 0) {
      const offset = Math.floor(this.handle.random() * potential.length);
      const r = this.dryRun(state, pod, potential, offset, this.numCandidates(potential.length));
      candidates = r.candidates;
      for (const [n, s] of r.statuses) nodeStatuses.set(n, s);
    }
    for (const [n, s] of unresolvable) nodeStatuses.set(n, s);
    return { candidates, nodeStatuses };
  }

  /** DryRunPreemption: selects victims on each potential node, from a random offset, until enough candidates. */
  private dryRun(
    state: CycleState,
    pod: PodInfo,
    potential: readonly NodeInfo[],
    offset: number,
    numCandidates: number,
  ): { candidates: Candidate[]; statuses: Map<string, Status> } {
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    const statuses = new Map<string, Status>();
    for (let i = 0; i < potential.length; i++) {
      const ni = potential[(offset + i) % potential.length]!.clone();
      const st = state.clone();
      st.recorder = undefined;
      const r = this.selectVictimsOnNode(st, pod, ni);
      if (r.status.isSuccess() && r.victims.length > 0) {
        (r.numPDBViolations === 0 ? nonViolating : violating).push({ name: ni.name, victims: r.victims, numPDBViolations: r.numPDBViolations });
        if (nonViolating.length > 0 && nonViolating.length + violating.length >= numCandidates) break;
        continue;
      }
      statuses.set(ni.name, r.status.isSuccess() ? asStatus(new Error(`expected at least one victim pod on node ${JSON.stringify(ni.name)}`)) : r.status);
    }
    return { candidates: [...nonViolating, ...violating], statuses };
  }

  /**
   * SelectVictimsOnNode: remove every lower-priority pod; if the pod then fits, add them back one by
   * one, most important first, keeping out only those whose return makes the pod not fit.
   */
  selectVictimsOnNode(state: CycleState, pod: PodInfo, ni: NodeInfo): { victims: PodInfo[]; numPDBViolations: number; status: Status } {
    const potential = ni.pods.filter((p) => p.priority < pod.priority);
    if (potential.length === 0) return { victims: [], numPDBViolations: 0, status: new Status(Code.UnschedulableAndUnresolvable, [MSG_NO_VICTIMS]) };
    for (const p of potential) {
      ni.removePod(p.uid);
      const s = this.handle.runPreFilterExtensionRemovePod(state, pod, p, ni);
      if (s) return { victims: [], numPDBViolations: 0, status: s };
    }
    const fits = this.handle.runFilterPluginsWithNominatedPods(state, pod, ni);
    if (fits && !fits.isSuccess()) return { victims: [], numPDBViolations: 0, status: fits };
    const now = this.handle.clock.now();
    potential.sort((a, b) => (moreImportantPod(a, b, now) ? -1 : moreImportantPod(b, a, now) ? 1 : 0));
    const victims: PodInfo[] = [];
    // No PodDisruptionBudgets are known here: every victim is non-violating.
    for (const p of potential) {
      ni.addPodInfo(p);
      const add = this.handle.runPreFilterExtensionAddPod(state, pod, p, ni);
      if (add) return { victims: [], numPDBViolations: 0, status: add };
      const s = this.handle.runFilterPluginsWithNominatedPods(state, pod, ni);
      if (s && !s.isSuccess()) {
        ni.removePod(p.uid);
        const rm = this.handle.runPreFilterExtensionRemovePod(state, pod, p, ni);
        if (rm) return { victims: [], numPDBViolations: 0, status: rm };
        victims.push(p);
      }
    }
    return { victims, numPDBViolations: 0, status: new Status(Code.Success) };
  }

  /** pickOneNodeForPreemption: fewest PDB violations, lowest top victim priority, lowest priority sum, fewest victims, latest start. */
  selectCandidate(candidates: readonly Candidate[]): Candidate {
    const now = this.handle.clock.now();
    const scoreFuncs: Array<(c: Candidate) => number> = [
      (c) => -c.numPDBViolations,
      (c) => -(c.victims[0]?.priority ?? 0),
      (c) => -c.victims.reduce((s, v) => s + v.priority + 2 ** 31, 0),
      (c) => -c.victims.length,
      (c) => {
        const top = Math.max(...c.victims.map((v) => v.priority));
        return Math.min(...c.victims.filter((v) => v.priority === top).map((v) => v.startTime() ?? now));
      },
    ];
    let remaining = [...candidates];
    for (const f of scoreFuncs) {
      let max = -Infinity;
      let selected: Candidate[] = [];
      for (const c of remaining) {
        const s = f(c);
        if (s > max) {
          max = s;
          selected = [];
        }
        if (s === max) selected.push(c);
      }
      if (selected.length === 1) return selected[0]!;
      remaining = selected;
    }
    return remaining[0]!;
  }

  /** prepareCandidate: evicts the victims (waiting ones are rejected instead) and clears lower nominations on the node. */
  private prepareCandidate(c: Candidate, pod: PodInfo): void {
    for (const v of c.victims) {
      const wp = this.handle.getWaitingPod(v.uid);
      if (wp) {
        wp.reject(this.name, "preempted");
        continue;
      }
      this.handle.background(`preempting ${v.key} on ${c.name} for ${pod.key}`, this.handle.client.deletePod(v, c.name));
    }
    for (const np of this.handle.nominatedPodsForNode(c.name)) if (np.priority < pod.priority && np.uid !== pod.uid) this.handle.clearNomination(np);
  }
}
