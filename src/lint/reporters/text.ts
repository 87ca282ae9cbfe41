// The default output, for a person at a terminal: findings grouped by file, each with the source
// line and a caret under what it is about, and a one-line summary.
import { ruleById } from "../rules";
import type { LintResult } from "../run";
import type { Finding, Severity } from "../types";
import { countBySeverity, plural } from "./summary";

const COLORS: Record<Severity, string> = { error: "\x1b[31m", warning: "\x1b[33m", info: "\x1b[36m" };
const RESET = "\x1b[0m";
const DIM = "\x1b[2m";

/** The caret line: whitespace copied up to the column (tabs stay tabs), then ^ under the range. */
function caret(source: string, f: Finding): string {
  const start = Math.max(0, f.column - 1);
  const prefix = source.slice(0, start).replace(/[^\t]/g, " ");
  const end = f.endLine === f.line ? Math.max(f.endColumn - 1, start + 1) : Math.max(source.trimEnd().length, start + 1);
  return prefix + "^".repeat(Math.min(end - start, 200));
}

export function formatText(result: LintResult, options: { color?: boolean } = {}): string {
  const paint = (s: string, code: string): string => (options.color ? `${code}${s}${RESET}` : s);
  const lines: string[] = [];
  for (const report of result.reports) {
    if (report.findings.length === 0) continue;
    lines.push(paint(report.file, "\x1b[1m"));
    for (const f of report.findings) {
      const where = `${f.line}:${f.column}`.padEnd(8);
      const severity = paint(f.severity.padEnd(7), COLORS[f.severity]);
      lines.push(`  ${where} ${severity} ${f.message}  ${paint(`[${f.rule}]`, DIM)}`);
      const source = report.excerpts[f.line];
      if (source !== undefined) {
        const gutter = String(f.line).padStart(6);
        lines.push(paint(`${gutter} | `, DIM) + source);
        lines.push(paint(`${" ".repeat(6)} | `, DIM) + paint(caret(source, f), COLORS[f.severity]));
      }
      const hint = f.hint || ruleById(f.rule)?.hint;
      if (hint) lines.push(paint(`         hint: ${hint}`, DIM));
    }
    lines.push("");
  }
  const counts = countBySeverity(result.findings);
  const clean = result.reports.filter((r) => r.findings.length === 0).length;
  const files = plural(result.filesChecked, "file");
  if (result.findings.length === 0) {
    lines.push(`✓ ${files} checked, no problems`);
  } else {
    const parts = [plural(counts.error, "error"), plural(counts.warning, "warning"), plural(counts.info, "info")];
    lines.push(`${counts.error > 0 ? "✖" : "!"} ${parts.join(", ")} in ${files} checked (${clean} clean)`);
  }
  return lines.join("\n") + "\n";
}
