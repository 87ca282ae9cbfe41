// `-o json`: one document with the run's summary and every finding, for jq and other programs.
// Field names are stable; new fields may be added.
import type { LintResult } from "../run";
import { countBySeverity } from "./summary";

export function formatJson(result: LintResult, toolVersion: string): string {
  const doc = {
    tool: "nodeagent staticpod lint",
    version: toolVersion,
    filesChecked: result.filesChecked,
    summary: countBySeverity(result.findings),
    findings: result.findings.map((f) => ({
      file: f.file,
      line: f.line,
      column: f.column,
      endLine: f.endLine,
      endColumn: f.endColumn,
      field: f.field,
      rule: f.rule,
      severity: f.severity,
      message: f.message,
      hint: f.hint,
    })),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}
