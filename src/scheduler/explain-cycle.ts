// The parts of an attempt's explanation that need the cycle's own data: every Filter plugin's
// verdict on every node of the search (the scheduler stops at the first rejection on a node; the
// verdicts after it are computed here, for the explanation only, and marked so) and every Score
// plugin's raw, normalised and weighted score.
import type { CycleState } from "./framework/cycle-state";
import type { Diagnosis } from "./framework/diagnosis";
import { verdict, type AttemptExplanation } from "./framework/explain";
import type { Framework, ScoreOutcome } from "./framework/runtime";
import { asStatus, type MaybeStatus } from "./framework/status";
import type { NodeInfo } from "./model/node-info";
import type { PodInfo } from "./model/pod-info";

export interface SearchFacts {
  numNodesToFind: number;
  startIndex: number;
  nominated?: string;
}

export function explainFilters(
  fwk: Framework,
  state: CycleState,
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  processed: ReadonlySet<string>,
  diagnosis: Diagnosis,
  search: SearchFacts,
): void {
  const rec = state.recorder!.explanation;
  const records = nodes.map((ni) => {
    const evaluated = processed.has(ni.name);
    const actual = diagnosis.nodeToStatus.has(ni.name) ? diagnosis.nodeToStatus.get(ni.name) : undefined;
    let stopped = false;
    const verdicts = fwk.filterPlugins.map((pl) => {
      if (state.skipFilterPlugins.has(pl.name)) return { plugin: pl.name, code: "Skip" as const, ranByScheduler: false };
      let s: MaybeStatus;
      // The scheduler's own verdict where it has one (it may have counted nominated pods).
      if (evaluated && actual?.plugin === pl.name) s = actual;
      else {
        try {
          s = pl.filter(state, pod, ni);
        } catch (e) {
          s = asStatus(e);
        }
      }
      const v = { ...verdict(pl.name, s), ranByScheduler: evaluated && !stopped };
      if (s && !s.isSuccess()) stopped = true;
      return v;
    });
    const feasible = evaluated ? !actual : verdicts.every((v) => v.code === "Success" || v.code === "Skip");
    return { node: ni.name, evaluated, feasible, verdicts };
  });
  rec.filter = {
    numNodesToFind: search.numNodesToFind,
    startIndex: search.startIndex,
    evaluated: processed.size,
    feasible: records.filter((r) => r.evaluated && r.feasible).length,
    ...(search.nominated ? { nominatedNode: search.nominated } : {}),
    nodes: records,
  };
}

export function explainScores(fwk: Framework, state: CycleState, s: ScoreOutcome): NonNullable<AttemptExplanation["score"]> {
  const skipped = fwk.scorePlugins.filter((p) => state.skipScorePlugins.has(p.name)).map((p) => p.name);
  const nodes = s.nodes.map((ni, i) => ({
    node: ni.name,
    total: s.totals[i]!,
    scores: s.plugins.map((pl, p) => {
      const weight = fwk.scorePluginWeight.get(pl.name) ?? 1;
      const normalized = s.normalized[p]![i]!;
      return { plugin: pl.name, raw: s.raw?.[p]?.[i] ?? normalized, normalized, weight, weighted: normalized * weight };
    }),
  }));
  nodes.sort((a, b) => b.total - a.total || (a.node < b.node ? -1 : 1));
  return { skipped, nodes };
}
