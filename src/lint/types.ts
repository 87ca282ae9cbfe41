// The linter's vocabulary: a finding (where, which rule, how bad, what the kubelet says, what to do),
// and what linting one file gives back to the run that assembles a directory's results.
import type { SourceRange } from "../manifest";

export type Severity = "error" | "warning" | "info";

/** Severities from the worst down; `--fail-on` and the exit code compare by this order. */
export const SEVERITIES: readonly Severity[] = ["error", "warning", "info"];

export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}

export interface Finding extends SourceRange {
  /** The path as the user gave it (or found under a directory they gave); "<stdin>" for `-`. */
  file: string;
  /** The field path as Kubernetes prints it; "" when the finding is about the file as a whole. */
  field: string;
  rule: string;
  severity: Severity;
  /** For errors, the kubelet's own wording. */
  message: string;
  hint: string;
}

/** The pod a file defines, for the checks that look across files (duplicate names). */
export interface PodIdentity {
  namespace: string;
  name: string;
  /** Where metadata.name is written. */
  at: SourceRange;
}

export interface FileReport {
  file: string;
  findings: Finding[];
  pod?: PodIdentity;
  /** The rules the pod's `lint.nodeagent.io/ignore` annotation turns off, for cross-file findings too. */
  ignored: string[];
  /** The source lines the findings point at, by line number, for reporters that quote them. */
  excerpts: Record<number, string>;
}
