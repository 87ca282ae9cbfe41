// Matching as apimachinery's labels.Selector, component-helpers' nodeaffinity and corev1 toleration
// helpers do it: label selectors (matchLabels/matchExpressions), node selector terms (ORed terms of
// ANDed requirements, metadata.name through matchFields), and taints against tolerations.
import type { LabelSelector } from "kubernetes-types/meta/v1";
import type { Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm, Taint, Toleration } from "kubernetes-types/core/v1";
import { errorMessage } from "../../util";

export type Labels = Readonly<Record<string, string>>;
export const NO_LABELS: Labels = Object.freeze({});

type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt";

interface Requirement {
  key: string;
  op: Operator;
  values: readonly string[];
}

export class SelectorError extends Error {
  override name = "SelectorError";
}

export class Selector {
  /** labels.Nothing(): what a nil *LabelSelector converts to. */
  static readonly NOTHING = new Selector([], true);
  /** labels.Everything(): what an empty LabelSelector ({}) converts to. */
  static readonly EVERYTHING = new Selector([], false);

  private constructor(
    private readonly requirements: readonly Requirement[],
    private readonly nothing: boolean,
  ) {}

  static of(requirements: readonly Requirement[]): Selector {
    return requirements.length === 0 ? Selector.EVERYTHING : new Selector(requirements, false);
  }

  /** True for Everything (no requirements). Nothing is not empty: it matches no labels at all. */
  isEmpty(): boolean {
    return !this.nothing && this.requirements.length === 0;
  }

  matches(labels: Labels | undefined): boolean {
    if (this.nothing) return false;
    const l = labels ?? NO_LABELS;
    for (const r of this.requirements) if (!requirementMatches(r, l[r.key])) return false;
    return true;
  }

  /** This selector with more requirements ANDed in (mergeLabelSetWithSelector). */
  and(more: readonly Requirement[]): Selector {
    if (this.nothing) return this;
    return Selector.of([...more, ...this.requirements]);
  }

  /** An exact, comparable form (for cache keys): same key, same selector. */
  key(): string {
    return this.nothing ? "!" : JSON.stringify(this.requirements.map((r) => [r.key, r.op, r.values]));
  }
}

function parseInt64(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

function requirementMatches(r: Requirement, value: string | undefined): boolean {
  switch (r.op) {
    case "In":
      return value !== undefined && r.values.includes(value);
    case "NotIn":
      return value === undefined || !r.values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      if (value === undefined) return false;
      const have = parseInt64(value);
      const want = parseInt64(r.values[0] ?? "");
      if (have === undefined || want === undefined) return false;
      return r.op === "Gt" ? have > want : have < want;
    }
  }
}

function requirement(key: string, op: string, values: readonly string[] | undefined, allowNumeric: boolean): Requirement {
  const vals = values ?? [];
  switch (op) {
    case "In":
    case "NotIn":
      if (vals.length === 0) throw new SelectorError(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
      return { key, op, values: vals };
    case "Exists":
    case "DoesNotExist":
      if (vals.length > 0) throw new SelectorError(`values: Invalid value: ${JSON.stringify(vals)}: values set must be empty for exists and does not exist`);
      return { key, op, values: [] };
    case "Gt":
    case "Lt":
      if (!allowNumeric) break;
      if (vals.length !== 1 || parseInt64(vals[0]!) === undefined)
        throw new SelectorError(`values: Invalid value: ${JSON.stringify(vals)}: for 'Gt', 'Lt' operators, exactly one integer value is required`);
      return { key, op, values: vals };
  }
  throw new SelectorError(`${JSON.stringify(op)} is not a valid label selector operator`);
}

/** metav1.LabelSelectorAsSelector: nil → Nothing, {} → Everything; throws SelectorError when invalid. */
export function labelSelectorAsSelector(ls: LabelSelector | undefined | null): Selector {
  if (!ls) return Selector.NOTHING;
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(ls.matchLabels ?? {})) reqs.push({ key: k, op: "In", values: [v] });
  for (const e of ls.matchExpressions ?? []) reqs.push(requirement(e.key, e.operator, e.values, false));
  return Selector.of(reqs);
}

/** labels.SelectorFromSet: every key equal to its value. */
export function selectorFromSet(set: Labels): Selector {
  return Selector.of(Object.entries(set).map(([key, v]) => ({ key, op: "In" as const, values: [v] })));
}

export function equalityRequirements(set: Labels): Requirement[] {
  return Object.entries(set).map(([key, v]) => ({ key, op: "In" as const, values: [v] }));
}

// ---------------------------------------------------------------------------------------------
// Node selectors

/** A parsed NodeSelectorTerm: label requirements and metadata.name requirements, all ANDed. */
class NodeSelectorTermMatcher {
  constructor(
    private readonly labelReqs: readonly Requirement[],
    private readonly fieldReqs: readonly Requirement[],
  ) {}

  /** An empty term matches no node (nodeSelectorTerm.isEmpty in component-helpers). */
  matches(node: Node): boolean {
    if (this.labelReqs.length === 0 && this.fieldReqs.length === 0) return false;
    const labels = node.metadata?.labels ?? NO_LABELS;
    for (const r of this.labelReqs) if (!requirementMatches(r, labels[r.key])) return false;
    const name = node.metadata?.name ?? "";
    for (const r of this.fieldReqs) if (!requirementMatches(r, name)) return false;
    return true;
  }
}

function parseTerm(term: NodeSelectorTerm): NodeSelectorTermMatcher {
  const labelReqs = (term.matchExpressions ?? []).map((e: NodeSelectorRequirement) => requirement(e.key, e.operator, e.values, true));
  const fieldReqs = (term.matchFields ?? []).map((e: NodeSelectorRequirement) => {
    if (e.key !== "metadata.name") throw new SelectorError(`${JSON.stringify(e.key)} is not a valid field selector key`);
    if (e.operator !== "In" && e.operator !== "NotIn") throw new SelectorError(`${JSON.stringify(e.operator)} is not a valid field selector operator`);
    if ((e.values ?? []).length !== 1) throw new SelectorError("must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
    return requirement(e.key, e.operator, e.values, false);
  });
  return new NodeSelectorTermMatcher(labelReqs, fieldReqs);
}

/**
 * A v1.NodeSelector: its terms are ORed. Terms that do not parse are dropped, as the lazy-error
 * selector the scheduler uses does ("ignore parsing errors for backwards compatibility").
 */
export class NodeSelectorMatcher {
  private readonly terms: NodeSelectorTermMatcher[] = [];
  readonly errors: string[] = [];

  constructor(selector: NodeSelector) {
    for (const t of selector.nodeSelectorTerms ?? []) {
      try {
        this.terms.push(parseTerm(t));
      } catch (e) {
        this.errors.push(errorMessage(e));
      }
    }
  }

  matches(node: Node): boolean {
    for (const t of this.terms) if (t.matches(node)) return true;
    return false;
  }
}

/**
 * nodeaffinity.RequiredNodeAffinity: spec.nodeSelector (every label equal) AND the required node
 * affinity terms, when there are any.
 */
export class RequiredNodeAffinity {
  private readonly labelSelector: Selector | undefined;
  private readonly nodeSelector: NodeSelectorMatcher | undefined;

  constructor(pod: Pod) {
    const ns = pod.spec?.nodeSelector;
    this.labelSelector = ns && Object.keys(ns).length > 0 ? selectorFromSet(ns) : undefined;
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    this.nodeSelector = required ? new NodeSelectorMatcher(required) : undefined;
  }

  /** Nothing is required of the node. */
  isEmpty(): boolean {
    return !this.labelSelector && !this.nodeSelector;
  }

  matches(node: Node): boolean {
    if (this.labelSelector && !this.labelSelector.matches(node.metadata?.labels)) return false;
    if (this.nodeSelector && !this.nodeSelector.matches(node)) return false;
    return true;
  }
}

/** nodeaffinity.PreferredSchedulingTerms: the sum of the weights of the terms a node matches. */
export class PreferredSchedulingTerms {
  private readonly terms: Array<{ weight: number; term: NodeSelectorTermMatcher }> = [];

  constructor(terms: readonly PreferredSchedulingTerm[]) {
    for (const t of terms) {
      if (!t.weight) continue;
      this.terms.push({ weight: t.weight, term: parseTerm(t.preference) });
    }
  }

  get length(): number {
    return this.terms.length;
  }

  score(node: Node): number {
    let s = 0;
    for (const t of this.terms) if (t.term.matches(node)) s += t.weight;
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// Taints and tolerations

/** Toleration.ToleratesTaint (k8s.io/api/core/v1 toleration.go). */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? "") {
    case "":
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  for (const t of tolerations ?? []) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** The taint effects that keep a pod off a node: NoSchedule and NoExecute (DoNotScheduleTaintsFilterFunc). */
export function isDoNotScheduleTaint(t: Taint): boolean {
  return t.effect === "NoSchedule" || t.effect === "NoExecute";
}

/** v1helper.FindMatchingUntoleratedTaint: the first taint passing `filter` that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter: (t: Taint) => boolean,
): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!filter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}

export function taintString(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
}
