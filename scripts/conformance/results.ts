// The bookkeeping of scripts/conformance/run.sh, over Ginkgo v2 JSON reports (e2e.test --ginkgo.json-report):
//
//   bun results.ts specs DRYRUN.json [REGEX]    the tests a dry run would run, one full name a line (the
//                                               names of nested containers and the It, joined by spaces),
//                                               only those matching REGEX (a JavaScript regular expression)
//   bun results.ts focus DRYRUN.json NAMES      a Go regular expression for --ginkgo.focus that matches
//                                               exactly the tests named in the file NAMES and no other
//   bun results.ts collect OUTDIR NAMES REPORT... each test named in NAMES: its last result across the
//                                               reports (a rerun's report comes after the run's; a test
//                                               no report ran is a FAIL, "not run") into OUTDIR: results.txt
//                                               (PASS/FAIL/SKIP name, sorted by name), failures.txt (each
//                                               failure's message and where), junit.xml, and reruns.txt
//                                               when a test has more than one result
//   bun results.ts compare DIR1 DIR2 NAME1 NAME2 two collected runs side by side (the control run first),
//                                               as Markdown: counts, both results of each test, and the
//                                               failure of each test that passes in DIR1 only
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The fields of a Ginkgo v2 SpecReport this script reads. */
interface SpecReport {
  ContainerHierarchyTexts: string[] | null;
  LeafNodeText: string;
  LeafNodeType: string;
  State: string;
  RunTime: number;
  Failure?: { Message: string; Location?: { FileName: string; LineNumber: number }; FailureNodeType?: string };
}

/** The fields of a Ginkgo v2 Report this script reads. */
interface Report {
  SuiteDescription: string;
  SpecReports: SpecReport[] | null;
}

function readReports(path: string): Report[] {
  return JSON.parse(readFileSync(path, "utf8")) as Report[];
}

/** Ginkgo matches focus and skip against the spec's non-empty node texts joined by spaces. */
function fullName(s: SpecReport): string {
  return [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].filter((t) => t !== "").join(" ");
}

/** The Its of the reports (suite set-up and tear-down nodes are not tests). */
function tests(reports: Report[]): SpecReport[] {
  return reports.flatMap((r) => (r.SpecReports ?? []).filter((s) => s.LeafNodeType === "It"));
}

/** What a state counts as: the run's pass and its skips (focus, skip, Skipf in the test) apart from the rest. */
function verdict(state: string): "PASS" | "FAIL" | "SKIP" {
  if (state === "passed") return "PASS";
  if (state === "skipped" || state === "pending") return "SKIP";
  return "FAIL"; // failed, panicked, timedout, interrupted, aborted
}

/** Escapes for Go's regexp (RE2), the same set as regexp.QuoteMeta. */
function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&");
}

function xml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
}

function specs(dryRun: string, filter?: string): void {
  const re = filter ? new RegExp(filter) : undefined;
  const names = tests(readReports(dryRun))
    .filter((s) => s.State === "passed")
    .map(fullName)
    .filter((n) => !re || re.test(n));
  if (names.length > 0) process.stdout.write(names.join("\n") + "\n");
}

function focus(dryRun: string, namesFile: string): void {
  const description = readReports(dryRun)[0]?.SuiteDescription ?? "";
  const names = readFileSync(namesFile, "utf8").split("\n").filter((n) => n !== "");
  if (names.length === 0) throw new Error(`${namesFile} names no test`);
  process.stdout.write(`^${quoteMeta(description)} (?:${names.map(quoteMeta).join("|")})$\n`);
}

function collect(outDir: string, namesFile: string, reportPaths: string[]): void {
  const planned = new Set(readFileSync(namesFile, "utf8").split("\n").filter((n) => n !== ""));
  const last = new Map<string, SpecReport>();
  const history = new Map<string, string[]>();
  for (const path of reportPaths) {
    for (const s of tests(readReports(path))) {
      const name = fullName(s);
      // Every process reports the whole suite; what its focus left out is skipped with no message.
      if (!planned.has(name) || (s.State === "skipped" && !s.Failure?.Message)) continue;
      last.set(name, s);
      history.set(name, [...(history.get(name) ?? []), verdict(s.State)]);
    }
  }
  for (const name of planned) {
    if (last.has(name)) continue;
    const message = "not run: no report has a result for it (its e2e.test process ended before it, see the shard's log)";
    last.set(name, { ContainerHierarchyTexts: [], LeafNodeText: name, LeafNodeType: "It", State: "not-run", RunTime: 0, Failure: { Message: message } });
  }
  const names = [...last.keys()].sort();
  const counts = { PASS: 0, FAIL: 0, SKIP: 0 };
  const lines: string[] = [];
  const failures: string[] = [];
  const cases: string[] = [];
  const failureDetails: Record<string, Failure> = {};
  for (const name of names) {
    const s = last.get(name)!;
    const v = verdict(s.State);
    counts[v]++;
    lines.push(`${v} ${name}`);
    const where = s.Failure?.Location ? `${s.Failure.Location.FileName}:${s.Failure.Location.LineNumber}` : "";
    if (v === "FAIL") failureDetails[name] = { state: s.State, where, message: s.Failure?.Message ?? "" };
    if (v === "FAIL") failures.push(`FAIL ${name}\n  [${s.State}] ${where}\n${indent(s.Failure?.Message ?? "(no message)")}\n`);
    const body =
      v === "FAIL"
        ? `<failure type="${xml(s.State)}" message="${xml(firstLine(s.Failure?.Message ?? s.State))}">${xml(`${where}\n${s.Failure?.Message ?? ""}`)}</failure>`
        : v === "SKIP"
          ? `<skipped message="${xml(firstLine(s.Failure?.Message ?? ""))}"/>`
          : "";
    cases.push(`    <testcase name="${xml(name)}" classname="Kubernetes e2e suite" time="${(s.RunTime / 1e9).toFixed(3)}">${body}</testcase>`);
  }
  writeFileSync(join(outDir, "results.txt"), lines.join("\n") + "\n");
  writeFileSync(join(outDir, "failures.txt"), failures.join("\n"));
  writeFileSync(join(outDir, "failures.json"), JSON.stringify(failureDetails, null, 2) + "\n");
  writeFileSync(
    join(outDir, "junit.xml"),
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${names.length}" failures="${counts.FAIL}" skipped="${counts.SKIP}">\n` +
      `  <testsuite name="Kubernetes e2e suite" tests="${names.length}" failures="${counts.FAIL}" skipped="${counts.SKIP}">\n` +
      cases.join("\n") +
      "\n  </testsuite>\n</testsuites>\n",
  );
  const reruns = names.filter((n) => (history.get(n) ?? []).length > 1).map((n) => `${history.get(n)!.join(" -> ")} ${n}`);
  if (reruns.length > 0) writeFileSync(join(outDir, "reruns.txt"), reruns.join("\n") + "\n");
  process.stdout.write(`${counts.PASS} passed, ${counts.FAIL} failed, ${counts.SKIP} skipped of ${names.length}\n`);
}

/** A failed test's result as failures.json keeps it. */
interface Failure {
  state: string;
  where: string;
  message: string;
}

/**
 * Two runs side by side (the control run first): counts, each test's two results, and for each test
 * that passes in the first and fails in the second its failure's first lines. Markdown on stdout.
 */
function compare(controlDir: string, otherDir: string, controlName: string, otherName: string): void {
  const read = (dir: string): Map<string, string> =>
    new Map(
      readFileSync(join(dir, "results.txt"), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => [l.slice(5), l.slice(0, 4)] as [string, string]),
    );
  const a = read(controlDir);
  const b = read(otherDir);
  const failuresB = JSON.parse(readFileSync(join(otherDir, "failures.json"), "utf8")) as Record<string, Failure>;
  const names = [...new Set([...a.keys(), ...b.keys()])].sort();
  const count = (m: Map<string, string>, v: string): number => [...m.values()].filter((x) => x === v).length;
  const out: string[] = [];
  out.push(`| | ${controlName} | ${otherName} |`, "| --- | --- | --- |");
  for (const v of ["PASS", "FAIL", "SKIP"]) out.push(`| ${v} | ${count(a, v)} | ${count(b, v)} |`);
  out.push(`| tests | ${a.size} | ${b.size} |`, "");
  const regressions = names.filter((n) => a.get(n) === "PASS" && b.get(n) !== "PASS");
  const better = names.filter((n) => b.get(n) === "PASS" && a.get(n) !== "PASS");
  const bothFail = names.filter((n) => a.get(n) === "FAIL" && b.get(n) === "FAIL");
  out.push(`Pass on ${controlName}, not on ${otherName}: ${regressions.length}. Pass on ${otherName} only: ${better.length}. Fail on both: ${bothFail.length}.`, "");
  out.push(`## Side by side (${controlName} | ${otherName} | test)`, "", "```");
  for (const n of names) out.push(`${a.get(n) ?? "----"} ${b.get(n) ?? "----"}${a.get(n) !== b.get(n) ? " *" : "  "} ${n}`);
  out.push("```", "");
  out.push(`## Pass on ${controlName}, fail on ${otherName}`, "");
  for (const n of regressions) {
    const f = failuresB[n];
    const lines = (f?.message ?? "").split("\n").filter((l) => l.trim() !== "").slice(0, 8);
    out.push(`### ${n}`, "", `${f?.state ?? b.get(n) ?? "missing"} at ${f?.where ?? "?"}`, "", "```", ...lines, "```", "");
  }
  if (better.length > 0) out.push(`## Pass on ${otherName} only`, "", ...better.map((n) => `- ${n}`), "");
  if (bothFail.length > 0) out.push("## Fail on both", "", ...bothFail.map((n) => `- ${n}`), "");
  process.stdout.write(out.join("\n"));
}

function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim() !== "") ?? "";
}

function indent(s: string): string {
  return s
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "specs" && args[0]) specs(args[0], args[1]);
else if (cmd === "focus" && args[0] && args[1]) focus(args[0], args[1]);
else if (cmd === "collect" && args[0] && args[1] && args.length > 2) collect(args[0], args[1], args.slice(2));
else if (cmd === "compare" && args.length === 4) compare(args[0]!, args[1]!, args[2]!, args[3]!);
else {
  process.stderr.write(
    "usage: results.ts specs DRYRUN.json [REGEX] | focus DRYRUN.json NAMES | collect OUTDIR NAMES REPORT... | compare DIR1 DIR2 NAME1 NAME2\n",
  );
  process.exit(2);
}
