// `-o github`: GitHub Actions workflow commands, which the runner turns into annotations on the
// pull request's diff (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`).
import type { LintResult } from "../run";
import type { Severity } from "../types";

const COMMAND: Record<Severity, string> = { error: "error", warning: "warning", info: "notice" };

/** The escaping of the runner's command parser (toolkit/core's escapeData and escapeProperty). */
const escapeData = (s: string): string => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

export function formatGithub(result: LintResult): string {
  const lines = result.findings.map((f) => {
    const props = [
      `file=${escapeProperty(f.file)}`,
      `line=${f.line}`,
      `col=${f.column}`,
      `endLine=${f.endLine}`,
      `endColumn=${f.endColumn}`,
      `title=${escapeProperty(`${f.rule} (nodeagent staticpod lint)`)}`,
    ];
    return `::${COMMAND[f.severity]} ${props.join(",")}::${escapeData(f.hint ? `${f.message}\n${f.hint}` : f.message)}`;
  });
  return lines.length > 0 ? lines.join("\n") + "\n" : "";
}
