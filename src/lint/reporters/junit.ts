// `-o junit`: a JUnit XML report for CI dashboards. Each file is a test suite; each finding a test
// case, failed when it is at least as severe as --fail-on (so the report agrees with the exit code),
// passed with the finding in system-out otherwise; a clean file is one passed test case.
import type { LintResult } from "../run";
import { atLeast, type Severity } from "../types";

/** XML 1.0 allows no C0 controls but tab, CR and LF, and no lone surrogates. */
function xml(s: string): string {
  return s
    .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

export function formatJunit(result: LintResult, failOn: Severity): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const report of result.reports) {
    const cases: string[] = [];
    let suiteFailures = 0;
    for (const f of report.findings) {
      const name = xml(`${f.rule} at ${f.line}:${f.column}${f.field ? ` (${f.field})` : ""}`);
      const body = xml(`${report.file}:${f.line}:${f.column}: ${f.severity}: ${f.message}\nhint: ${f.hint}`);
      if (atLeast(f.severity, failOn)) {
        suiteFailures++;
        cases.push(
          `    <testcase name="${name}" classname="${xml(report.file)}">\n      <failure message="${xml(f.message)}" type="${xml(f.rule)}">${body}</failure>\n    </testcase>`,
        );
      } else {
        cases.push(`    <testcase name="${name}" classname="${xml(report.file)}">\n      <system-out>${body}</system-out>\n    </testcase>`);
      }
    }
    if (cases.length === 0) cases.push(`    <testcase name="manifest" classname="${xml(report.file)}"/>`);
    tests += cases.length;
    failures += suiteFailures;
    suites.push(
      `  <testsuite name="${xml(report.file)}" tests="${cases.length}" failures="${suiteFailures}" errors="0" skipped="0">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="nodeagent staticpod lint" tests="${tests}" failures="${failures}" errors="0">\n${suites.join("\n")}\n</testsuites>\n`;
}
