// The output formats, by the name `-o` takes.
import type { LintResult } from "../run";
import type { Severity } from "../types";
import { formatGithub } from "./github";
import { formatJson } from "./json";
import { formatJunit } from "./junit";
import { formatSarif } from "./sarif";
import { formatText } from "./text";

export const OUTPUT_FORMATS = ["text", "json", "sarif", "github", "junit"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface ReportOptions {
  failOn: Severity;
  toolVersion: string;
  color?: boolean;
}

export function formatResult(result: LintResult, format: OutputFormat, options: ReportOptions): string {
  switch (format) {
    case "text":
      return formatText(result, { color: options.color ?? false });
    case "json":
      return formatJson(result, options.toolVersion);
    case "sarif":
      return formatSarif(result, options.toolVersion);
    case "github":
      return formatGithub(result);
    case "junit":
      return formatJunit(result, options.failOn);
  }
}

export { artifactUri } from "./sarif";
