// How `schedule` prints results: a table (one line per pod, the FailedScheduling message whole),
// the per-node, per-plugin explanation under it with --explain, or JSON (one object per line) and
// YAML (one document per pod) carrying the same data.
import YAML from "yaml";
import { truncateMessage } from "./framework/diagnosis";
import type { AttemptExplanation, NodeFilterRecord, PluginScoreRecord } from "./framework/explain";
import type { AttemptResult } from "./framework/result";
import type { PodReport } from "./once";

export type OutputFormat = "table" | "json" | "yaml";

function pad(cells: string[][]): string[] {
  const widths: number[] = [];
  for (const row of cells) row.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return cells.map((row) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

function summary(r: {
  outcome: string;
  node?: string;
  message: string;
  nominatedNode?: string;
  preempted?: string[];
  feasibleNodes?: number;
  evaluatedNodes?: number;
  score?: number;
}): string {
  if (r.outcome === "Scheduled") {
    const parts: string[] = [];
    if (r.score !== undefined) parts.push(`score ${r.score}`);
    if (r.feasibleNodes !== undefined) parts.push(`${r.feasibleNodes} feasible of ${r.evaluatedNodes} nodes evaluated`);
    if (r.preempted?.length) parts.push(`preempted ${r.preempted.join(", ")}`);
    return parts.join("; ") || r.message;
  }
  let m = r.message;
  if (r.nominatedNode) m += ` (nominated node ${r.nominatedNode}${r.preempted?.length ? ` after preempting ${r.preempted.join(", ")}` : ""})`;
  return m;
}

/** The one-shot table: POD, RESULT, NODE, DETAILS; --explain adds each attempt's explanation below its pod. */
export function formatReportsTable(reports: readonly PodReport[], explain: boolean): string {
  const lines: string[] = [];
  if (!explain) {
    const rows = [["POD", "RESULT", "NODE", "DETAILS"]];
    for (const r of reports) {
      const last = r.results[r.results.length - 1];
      rows.push([`${r.namespace}/${r.name}`, r.outcome, r.node ?? "-", summary({ ...last, ...r })]);
    }
    return pad(rows).join("\n") + "\n";
  }
  for (const r of reports) {
    const last = r.results[r.results.length - 1];
    lines.push(`${r.namespace}/${r.name}: ${r.outcome}${r.node ? ` on ${r.node}` : ""} — ${summary({ ...last, ...r })}`);
    if (r.results.length === 0) lines.push("  not attempted");
    for (const a of r.results) lines.push(...explainAttempt(a));
    lines.push("");
  }
  return lines.join("\n");
}

/** One line per attempt (the --watch table): time, pod, attempt, result, node, details. */
export function formatAttemptLine(a: AttemptResult): string {
  const time = new Date(a.time).toISOString().slice(11, 23);
  return `${time}  ${a.namespace}/${a.name}  attempt ${a.attempt}  ${a.outcome}${a.node ? ` on ${a.node}` : ""}: ${summary(a)}`;
}

function verdictText(v: { code: string; reasons?: string[]; detail?: string }): string {
  const reasons = v.reasons?.join(", ") ?? "";
  return `${v.code}${reasons ? `: ${reasons}` : ""}${v.detail ? ` (${v.detail})` : ""}`;
}

function filterLines(nodes: readonly NodeFilterRecord[]): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    const failing = n.verdicts.filter((v) => v.code !== "Success" && v.code !== "Skip");
    const state = !n.evaluated ? (failing.length ? "not evaluated (would not fit)" : "not evaluated (would fit)") : n.feasible ? "fits" : "rejected";
    if (failing.length === 0) {
      out.push(`    ${n.node}  ${state}`);
      continue;
    }
    const [first, ...rest] = failing;
    out.push(`    ${n.node}  ${state}: ${first!.plugin} ${verdictText(first!)}${first!.ranByScheduler ? "" : "  [not run by the scheduler]"}`);
    for (const v of rest)
      out.push(`    ${" ".repeat(n.node.length)}  also ${v.plugin} ${verdictText(v)}${v.ranByScheduler ? "" : "  [not run by the scheduler]"}`);
  }
  return out;
}

function scoreCell(s: PluginScoreRecord): string {
  const base = s.raw === s.normalized ? `${s.normalized}` : `${s.raw}→${s.normalized}`;
  return `${base}×${s.weight}=${s.weighted}`;
}

/** The explanation of one attempt, indented. */
export function explainAttempt(a: AttemptResult): string[] {
  const e: AttemptExplanation | undefined = a.explanation;
  const out = [`  attempt ${a.attempt}: ${a.outcome}${a.node ? ` on ${a.node}` : ""}`];
  if (!e) return out;
  out.push(`    profile ${e.profile}, ${e.nodes} nodes`);
  const ran = e.preFilter.filter((v) => v.code !== "Skip");
  const skipped = e.preFilter.filter((v) => v.code === "Skip").map((v) => v.plugin);
  out.push(`    PreFilter: ${ran.map((v) => `${v.plugin} ${verdictText(v)}`).join("; ") || "none"}${skipped.length ? `; skipped: ${skipped.join(", ")}` : ""}`);
  if (e.preFilterNodeNames) out.push(`    PreFilter narrowed the nodes to: ${e.preFilterNodeNames.join(", ")}`);
  if (e.filter) {
    const f = e.filter;
    out.push(
      `    Filter: ${f.evaluated} of ${f.nodes.length} nodes evaluated from index ${f.startIndex}, looking for ${f.numNodesToFind} feasible; ${f.feasible} feasible${f.nominatedNode ? `; nominated node ${f.nominatedNode} tried first` : ""}`,
    );
    out.push(...filterLines(f.nodes).map((l) => `  ${l}`));
  }
  if (e.postFilter) {
    const p = e.postFilter;
    out.push(
      `    PostFilter ${p.plugin}: ${verdictText(p)}${p.nominatedNode ? `; nominated ${p.nominatedNode}` : ""}${p.victims?.length ? `; preempting ${p.victims.join(", ")}` : ""}`,
    );
  }
  if (e.preScore) {
    const skippedScore = e.preScore.filter((v) => v.code === "Skip").map((v) => v.plugin);
    if (skippedScore.length) out.push(`    PreScore skipped: ${skippedScore.join(", ")}`);
  }
  if (e.score && e.score.nodes.length > 0) {
    const plugins = e.score.nodes[0]!.scores.map((s) => s.plugin);
    out.push(`    Score (raw→normalised×weight=weighted):`);
    const rows = [["NODE", "TOTAL", ...plugins]];
    for (const n of e.score.nodes) rows.push([n.node, String(n.total), ...n.scores.map(scoreCell)]);
    out.push(...pad(rows).map((l) => `      ${l}`));
  }
  if (e.selected)
    out.push(
      `    Selected ${e.selected.node}${e.score ? ` (score ${e.selected.score}${e.selected.tiedWith ? `, tied with ${e.selected.tiedWith} other node(s), picked at random` : ""})` : " (the only feasible node)"}`,
    );
  for (const point of ["reserve", "permit", "preBind", "bind"] as const) {
    const vs = e[point];
    if (vs?.length) out.push(`    ${point[0]!.toUpperCase()}${point.slice(1)}: ${vs.map((v) => `${v.plugin} ${verdictText(v)}`).join("; ")}`);
  }
  if (a.outcome !== "Scheduled") out.push(`    FailedScheduling: ${a.message}`);
  return out;
}

/** The JSON form of a pod's report: the last attempt's explanation, or every attempt's with explain. */
export function reportJSON(r: PodReport, explain: boolean): Record<string, unknown> {
  const last = r.results[r.results.length - 1];
  const out: Record<string, unknown> = {
    namespace: r.namespace,
    name: r.name,
    uid: r.uid,
    ...(r.origin ? { origin: r.origin } : {}),
    outcome: r.outcome,
    node: r.node ?? null,
    message: r.message,
    attempts: r.attempts,
  };
  // The FailedScheduling event carries at most 1024 bytes; the pod condition (and this) the whole message.
  if (r.outcome !== "Scheduled" && truncateMessage(r.message) !== r.message) out.eventMessage = truncateMessage(r.message);
  if (last?.reason) out.reason = last.reason;
  if (last?.unschedulablePlugins?.length) out.unschedulablePlugins = last.unschedulablePlugins;
  if (last?.score !== undefined) out.score = last.score;
  if (last?.evaluatedNodes !== undefined) out.evaluatedNodes = last.evaluatedNodes;
  if (last?.feasibleNodes !== undefined) out.feasibleNodes = last.feasibleNodes;
  if (r.nominatedNode) out.nominatedNode = r.nominatedNode;
  if (r.preempted) out.preempted = r.preempted;
  if (explain) out.explanations = r.results.map((a) => a.explanation).filter(Boolean);
  return out;
}

export function formatReports(reports: readonly PodReport[], format: OutputFormat, explain: boolean): string {
  switch (format) {
    case "table":
      return formatReportsTable(reports, explain);
    case "json":
      return reports.map((r) => JSON.stringify(reportJSON(r, explain))).join("\n") + (reports.length ? "\n" : "");
    case "yaml":
      return reports.map((r) => YAML.stringify(reportJSON(r, explain), { lineWidth: 0 })).join("---\n");
  }
}

export function formatAttempt(a: AttemptResult, format: OutputFormat, explain: boolean): string {
  const { explanation, ...rest } = a;
  const obj = explain && explanation ? { ...rest, time: new Date(a.time).toISOString(), explanation } : { ...rest, time: new Date(a.time).toISOString() };
  switch (format) {
    case "table":
      return [formatAttemptLine(a), ...(explain ? explainAttempt(a) : [])].join("\n") + "\n";
    case "json":
      return JSON.stringify(obj) + "\n";
    case "yaml":
      return `---\n${YAML.stringify(obj, { lineWidth: 0 })}`;
  }
}
