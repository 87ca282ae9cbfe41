// SchedulePod (pkg/scheduler/schedule_one.go): the part of the scheduling cycle that picks a node —
// update the snapshot, PreFilter, Filter (the nominated node first, then from a start index that
// rotates between cycles, until enough feasible nodes are found), PreScore, Score and selectHost.
// Its one piece of state across cycles is that start index.
import type { Cache } from "./cache/cache";
import type { Snapshot } from "./cache/snapshot";
import type { CycleState } from "./framework/cycle-state";
import { Diagnosis, FitError } from "./framework/diagnosis";
import { explainFilters, explainScores } from "./explain-cycle";
import type { Framework, ScoreOutcome } from "./framework/runtime";
import { Code, Status } from "./framework/status";
import type { NodeInfo } from "./model/node-info";
import type { PodInfo } from "./model/pod-info";
import type { LogFields } from "../util";

/** minFeasibleNodesToFind: at least this many nodes are scored when there are that many. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** minFeasibleNodesPercentageToFind: the adaptive percentage never goes below 5%. */
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

export const ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods";

export type ScheduleResult = { host: string; evaluatedNodes: number; feasibleNodes: number; score?: number };

export interface HostFinderDeps {
  cache: Cache;
  snapshot: Snapshot;
  /** [0, 1): breaks ties between equal totals. */
  random: () => number;
  /** The configuration's percentageOfNodesToScore (0: adaptive), for profiles that set none. */
  percentageOfNodesToScore: number;
  warn: (message: string, fields?: LogFields) => void;
}

export class HostFinder {
  private readonly cache: Cache;
  private readonly snapshot: Snapshot;
  private readonly random: () => number;
  private readonly percentageOfNodesToScore: number;
  private readonly warn: (message: string, fields?: LogFields) => void;
  private nextStartNodeIndex = 0;

  constructor(d: HostFinderDeps) {
    this.cache = d.cache;
    this.snapshot = d.snapshot;
    this.random = d.random;
    this.percentageOfNodesToScore = d.percentageOfNodesToScore;
    this.warn = d.warn;
  }

  /** SchedulePod: the host, or a FitError, or an error status. */
  schedulePod(fwk: Framework, state: CycleState, pod: PodInfo): ScheduleResult | { fitError: FitError } | { status: Status } {
    this.cache.updateSnapshot(this.snapshot);
    if (state.recorder) state.recorder.explanation.nodes = this.snapshot.numNodes();
    if (this.snapshot.numNodes() === 0) return { status: new Status(Code.UnschedulableAndUnresolvable, [ERR_NO_NODES_AVAILABLE]) };
    const fit = this.findNodesThatFitPod(fwk, state, pod);
    if ("status" in fit) return fit;
    const { feasible, diagnosis } = fit;
    if (feasible.length === 0) return { fitError: new FitError(pod.key, this.snapshot.numNodes(), diagnosis) };
    if (feasible.length === 1) {
      const host = feasible[0]!.name;
      if (state.recorder) state.recorder.explanation.selected = { node: host, score: 0, tiedWith: 0 };
      return { host, evaluatedNodes: 1 + diagnosis.nodeToStatus.size, feasibleNodes: 1 };
    }
    const scores = this.prioritizeNodes(fwk, state, pod, feasible);
    if (scores instanceof Status) return { status: scores };
    const { host, score, tied } = this.selectHost(scores);
    if (state.recorder) {
      state.recorder.explanation.score = explainScores(fwk, state, scores);
      state.recorder.explanation.selected = { node: host, score, tiedWith: tied - 1 };
    }
    return { host, evaluatedNodes: feasible.length + diagnosis.nodeToStatus.size, feasibleNodes: feasible.length, score };
  }

  /** findNodesThatFitPod: PreFilter, the nominated node, then Filter over the (PreFilter-narrowed) nodes. */
  private findNodesThatFitPod(fwk: Framework, state: CycleState, pod: PodInfo): { feasible: NodeInfo[]; diagnosis: Diagnosis } | { status: Status } {
    const diagnosis = new Diagnosis();
    const all = this.snapshot.list();
    const pre = fwk.runPreFilterPlugins(state, pod, all);
    diagnosis.unschedulablePlugins = pre.unschedulablePlugins;
    const rec = state.recorder?.explanation;
    if (rec && pre.nodeNames) rec.preFilterNodeNames = [...pre.nodeNames].sort();
    if (pre.status && !pre.status.isSuccess()) {
      if (!pre.status.isRejected()) return { status: pre.status };
      // Every node gets the PreFilter status, so that preemption sees it.
      diagnosis.nodeToStatus.absentNodesStatus = pre.status;
      diagnosis.preFilterMsg = pre.status.message();
      diagnosis.addPluginStatus(pre.status);
      if (rec) explainFilters(fwk, state, pod, all, new Set(), diagnosis, { numNodesToFind: 0, startIndex: 0 });
      return { feasible: [], diagnosis };
    }
    const nominated = pod.pod.status?.nominatedNodeName;
    if (nominated) {
      const ni = this.snapshot.get(nominated);
      if (ni) {
        const r = this.findNodesThatPassFilters(fwk, state, pod, diagnosis, [ni], true);
        if ("status" in r) this.warn("Evaluation failed on nominated node", { node: nominated, pod: pod.key, err: r.status.message() });
        else if (r.feasible.length > 0) {
          if (rec) explainFilters(fwk, state, pod, all, new Set([nominated]), diagnosis, { numNodesToFind: 1, startIndex: 0, nominated });
          return { feasible: r.feasible, diagnosis };
        }
      }
    }
    let nodes: readonly NodeInfo[] = all;
    if (pre.nodeNames) {
      nodes = [...pre.nodeNames].map((n) => this.snapshot.get(n)).filter((n): n is NodeInfo => !!n);
      diagnosis.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [
        `node(s) didn't satisfy plugin(s) [${[...pre.unschedulablePlugins].sort().join(" ")}]`,
      ]);
    }
    const startIndex = this.nextStartNodeIndex;
    const r = this.findNodesThatPassFilters(fwk, state, pod, diagnosis, nodes, false);
    const processed = ("status" in r ? 0 : r.feasible.length) + diagnosis.nodeToStatus.size;
    this.nextStartNodeIndex = (this.nextStartNodeIndex + processed) % all.length;
    if ("status" in r) return r;
    if (rec) explainFilters(fwk, state, pod, nodes, r.processed, diagnosis, { numNodesToFind: r.numNodesToFind, startIndex, nominated });
    return { feasible: r.feasible, diagnosis };
  }

  /** findNodesThatPassFilters: from nextStartNodeIndex, until numNodesToFind feasible nodes. */
  private findNodesThatPassFilters(
    fwk: Framework,
    state: CycleState,
    pod: PodInfo,
    diagnosis: Diagnosis,
    nodes: readonly NodeInfo[],
    nominatedOnly: boolean,
  ): { feasible: NodeInfo[]; processed: Set<string>; numNodesToFind: number } | { status: Status } {
    const n = nodes.length;
    let numNodesToFind = this.numFeasibleNodesToFind(fwk.percentageOfNodesToScore, n);
    if (!fwk.hasScorePlugins()) numNodesToFind = 1;
    const start = nominatedOnly ? 0 : this.nextStartNodeIndex;
    const feasible: NodeInfo[] = [];
    const processed = new Set<string>();
    const explaining = !!state.recorder;
    if (!fwk.hasFilterPlugins()) {
      for (let i = 0; i < numNodesToFind; i++) feasible.push(nodes[(start + i) % n]!);
      return { feasible, processed, numNodesToFind };
    }
    for (let i = 0; i < n; i++) {
      const ni = nodes[(start + i) % n]!;
      if (explaining) processed.add(ni.name);
      const s = fwk.runFilterPluginsWithNominatedPods(state, pod, ni);
      if (s && s.code === Code.Error) return { status: s };
      if (!s || s.isSuccess()) {
        feasible.push(ni);
        if (feasible.length >= numNodesToFind) break;
      } else {
        diagnosis.nodeToStatus.set(ni.name, s);
        diagnosis.addPluginStatus(s);
      }
    }
    return { feasible, processed, numNodesToFind };
  }

  /** numFeasibleNodesToFind: all below 100 nodes; else percentageOfNodesToScore (adaptive: 50% − n/125, ≥ 5%), at least 100. */
  numFeasibleNodesToFind(profilePercentage: number | undefined, numAllNodes: number): number {
    if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
    let percentage = profilePercentage ?? this.percentageOfNodesToScore;
    if (percentage === 0) {
      percentage = 50 - Math.trunc(numAllNodes / 125);
      if (percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
    }
    const numNodes = Math.trunc((numAllNodes * percentage) / 100);
    return numNodes < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : numNodes;
  }

  /** prioritizeNodes: PreScore and Score; every node gets 1 when there are no score plugins. */
  private prioritizeNodes(fwk: Framework, state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): ScoreOutcome | Status {
    if (!fwk.hasScorePlugins()) return { nodes, totals: new Float64Array(nodes.length).fill(1), plugins: [], normalized: [] };
    const pre = fwk.runPreScorePlugins(state, pod, nodes);
    if (pre && !pre.isSuccess()) return pre;
    return fwk.runScorePlugins(state, pod, nodes);
  }

  /** selectHost: the highest total; among equal totals, each is equally likely (reservoir sampling). */
  private selectHost(s: ScoreOutcome): { host: string; score: number; tied: number } {
    let best = 0;
    let tied = 1;
    for (let i = 1; i < s.totals.length; i++) {
      const t = s.totals[i]!;
      if (t > s.totals[best]!) {
        best = i;
        tied = 1;
      } else if (t === s.totals[best]) {
        tied++;
        if (this.random() * tied < 1) best = i;
      }
    }
    return { host: s.nodes[best]!.name, score: s.totals[best]!, tied };
  }
}
