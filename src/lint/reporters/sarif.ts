// `-o sarif`: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers. Unlike kube-linter's
// (whose regions are all line 1), every result has the real region of the key or value it is about,
// in UTF-16 columns with an exclusive end, as SARIF counts them by default.
import type { Log, ReportingDescriptor, Result } from "sarif";
import { RULES } from "../rules";
import type { LintResult } from "../run";
import type { Finding, Severity } from "../types";

const LEVEL: Record<Severity, Result.level> = { error: "error", warning: "warning", info: "note" };
const RULE_INDEX = new Map(RULES.map((r, i) => [r.id, i]));

/** A file path as a URI reference: relative paths stay relative to the working directory. */
export function artifactUri(file: string): string {
  const encoded = file.split("/").map(encodeURIComponent).join("/");
  return file.startsWith("/") ? `file://${encoded}` : encoded;
}

function descriptor(): ReportingDescriptor[] {
  return RULES.map((r) => ({
    id: r.id,
    shortDescription: { text: r.summary },
    fullDescription: { text: r.description },
    help: { text: r.hint },
    defaultConfiguration: { level: LEVEL[r.severity] },
    properties: { tags: ["kubernetes", "static-pod", r.severity === "error" ? "kubelet-rejects" : "best-practice"] },
  }));
}

function result(f: Finding): Result {
  return {
    ruleId: f.rule,
    ruleIndex: RULE_INDEX.get(f.rule) ?? -1,
    level: LEVEL[f.severity],
    message: { text: f.hint ? `${f.message}\nHint: ${f.hint}` : f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: artifactUri(f.file) },
          region: { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: Math.max(f.endColumn, f.endLine === f.line ? f.column + 1 : 1) },
        },
        ...(f.field ? { logicalLocations: [{ fullyQualifiedName: f.field, kind: "member" }] } : {}),
      },
    ],
  };
}

export function formatSarif(result_: LintResult, toolVersion: string): string {
  const log: Log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "nodeagent staticpod lint", semanticVersion: toolVersion, rules: descriptor() } },
        columnKind: "utf16CodeUnits",
        results: result_.findings.map(result),
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}
