// The explanation of one scheduling attempt: every extension point's verdicts, per plugin and, for
// Filter and Score, per node, untruncated. kube-scheduler keeps only a histogram of reasons (capped
// at 1024 bytes in the event); this is what --explain prints and what -o json carries.
import { CODE_NAMES, type CodeName, type MaybeStatus } from "./status";

export interface PluginVerdict {
  plugin: string;
  code: CodeName;
  reasons?: string[];
  detail?: string;
}

export interface NodeFilterRecord {
  node: string;
  /** The scheduler looked at this node in this cycle (it stops once it has found enough feasible nodes). */
  evaluated: boolean;
  feasible: boolean;
  /**
   * Every Filter plugin's verdict. The scheduler stops at the first rejection; the verdicts after it
   * are marked ranByScheduler: false and computed only for this explanation.
   */
  verdicts: Array<PluginVerdict & { ranByScheduler: boolean }>;
}

export interface PluginScoreRecord {
  plugin: string;
  raw: number;
  normalized: number;
  weight: number;
  weighted: number;
}

export interface NodeScoreRecord {
  node: string;
  total: number;
  scores: PluginScoreRecord[];
}

export interface AttemptExplanation {
  attempt: number;
  profile: string;
  /** Nodes in the snapshot. */
  nodes: number;
  preFilter: PluginVerdict[];
  /** The PreFilterResult: the only nodes worth filtering, when a plugin narrowed them. */
  preFilterNodeNames?: string[];
  filter?: {
    /** How many feasible nodes the scheduler looks for (percentageOfNodesToScore). */
    numNodesToFind: number;
    /** Where in the node list this cycle's search started (the rotating start index). */
    startIndex: number;
    evaluated: number;
    feasible: number;
    /** The pod's nominated node, tried first. */
    nominatedNode?: string;
    nodes: NodeFilterRecord[];
  };
  postFilter?: PluginVerdict & { nominatedNode?: string; victims?: string[] };
  preScore?: PluginVerdict[];
  score?: {
    /** Score plugins whose PreScore said Skip: they did not score this pod. */
    skipped: string[];
    /** Highest total first. */
    nodes: NodeScoreRecord[];
  };
  selected?: { node: string; score: number; tiedWith: number };
  reserve?: PluginVerdict[];
  permit?: PluginVerdict[];
  preBind?: PluginVerdict[];
  bind?: PluginVerdict[];
}

export function verdict(plugin: string, s: MaybeStatus): PluginVerdict {
  const v: PluginVerdict = { plugin, code: s ? s.codeName() : CODE_NAMES[0] };
  if (s && s.reasons.length > 0) v.reasons = [...s.reasons];
  if (s?.detail) v.detail = s.detail;
  return v;
}

/** Collects one attempt's explanation as the framework runs (CycleState.recorder). */
export class CycleRecorder {
  readonly explanation: AttemptExplanation;

  constructor(attempt: number, profile: string, nodes: number) {
    this.explanation = { attempt, profile, nodes, preFilter: [] };
  }

  preFilter(plugin: string, s: MaybeStatus): void {
    this.explanation.preFilter.push(verdict(plugin, s));
  }

  point(point: "preScore" | "reserve" | "permit" | "preBind" | "bind", plugin: string, s: MaybeStatus): void {
    (this.explanation[point] ??= []).push(verdict(plugin, s));
  }
}
