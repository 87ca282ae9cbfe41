// A lint run: select the files, lint each (here or with worker threads), then what only the whole
// directory shows (two files defining one pod), then the configuration. The result is what every
// reporter prints and what decides the exit code.
import { dirname } from "node:path";
import { tooLargeMessage } from "../manifest";
import { lintManifest, type ManifestLintOptions } from "./check-manifest";
import { applyConfig, type LintConfig } from "./config";
import { readManifest, selectInputs, type ManifestInput } from "./inputs";
import { ruleById } from "./rules";
import { atLeast, type FileReport, type Finding, type Severity } from "./types";

export interface LintResult {
  /** One report per file linted, in the order the files were given (or found), then directories skipped. */
  reports: FileReport[];
  /** Every finding, in report order and by position within a file. */
  findings: Finding[];
  filesChecked: number;
}

/** Lints one input, reading it first. Throws InputError when it cannot be read. */
export function lintInput(input: ManifestInput, options: ManifestLintOptions): FileReport {
  const read = readManifest(input);
  if ("tooLarge" in read) {
    const r = ruleById("file-too-large")!;
    const finding: Finding = {
      file: input.display,
      line: 1,
      column: 1,
      endLine: 1,
      endColumn: 1,
      field: "",
      rule: r.id,
      severity: r.severity,
      message: tooLargeMessage(read.tooLarge),
      hint: r.hint,
    };
    return { file: input.display, findings: [finding], ignored: [], excerpts: {} };
  }
  return lintManifest(read.text, input.display, options);
}

export function lintInputs(inputs: readonly ManifestInput[], options: ManifestLintOptions): FileReport[] {
  return inputs.map((input) => lintInput(input, options));
}

/**
 * The kubelet keys static pods by namespace and name: a second file in the same directory with the
 * same pod is an error. Files in different directories go to different nodes (or none), so they may.
 */
function duplicatePodNames(reports: readonly FileReport[], inputs: readonly ManifestInput[]): void {
  const first = new Map<string, FileReport>();
  const dirOf = new Map(inputs.map((i) => [i.display, i.path === "-" ? undefined : dirname(i.path)]));
  for (const report of reports) {
    const pod = report.pod;
    const dir = dirOf.get(report.file);
    if (!pod || dir === undefined) continue;
    const key = `${pod.namespace}/${pod.name}`;
    const earlier = first.get(`${dir}\0${key}`);
    if (!earlier) {
      first.set(`${dir}\0${key}`, report);
      continue;
    }
    if (report.ignored.includes("duplicate-pod-name")) continue;
    const r = ruleById("duplicate-pod-name")!;
    const at = earlier.pod!.at;
    report.findings.push({
      file: report.file,
      ...pod.at,
      field: "metadata.name",
      rule: r.id,
      severity: r.severity,
      hint: r.hint,
      message: `pod ${JSON.stringify(key)} is also defined in ${earlier.file}:${at.line}:${at.column}; the kubelet runs only one of the two, and which one is undefined`,
    });
  }
}

/** Puts the selection's findings into the reports of their files, and the rest into reports of their own. */
function withSelectionFindings(reports: FileReport[], findings: readonly Finding[]): FileReport[] {
  const byFile = new Map(reports.map((r) => [r.file, r]));
  const extra: FileReport[] = [];
  for (const f of findings) {
    const report = byFile.get(f.file);
    if (report) {
      if (!report.ignored.includes(f.rule)) report.findings.unshift(f);
      continue;
    }
    const own: FileReport = { file: f.file, findings: [f], ignored: [], excerpts: {} };
    byFile.set(f.file, own);
    extra.push(own);
  }
  return [...reports, ...extra];
}

/** The whole-run view: cross-file checks, the configuration, findings sorted within each file. */
export function assembleResult(reports: FileReport[], inputs: readonly ManifestInput[], selectionFindings: readonly Finding[], config: LintConfig): LintResult {
  duplicatePodNames(reports, inputs);
  const all = withSelectionFindings(reports, selectionFindings);
  const findings: Finding[] = [];
  for (const report of all) {
    report.findings = applyConfig(report.findings, config).sort((a, b) => a.line - b.line || a.column - b.column);
    findings.push(...report.findings);
  }
  return { reports: all, findings, filesChecked: reports.length };
}

export interface LintRunOptions extends ManifestLintOptions {
  recursive?: boolean;
  stdinName?: string;
  config: LintConfig;
  /** Lints the files with this many threads; standard input is always linted here. */
  jobs?: number;
  /** How the parallel run lints the files with `jobs` threads (jobs.ts lintInWorkers); absent, everything is linted here. */
  lintElsewhere?: (inputs: ManifestInput[], jobs: number, options: ManifestLintOptions) => Promise<FileReport[]>;
}

/** Lints what the arguments name. Throws InputError when something named cannot be read. */
export async function runLint(args: readonly string[], options: LintRunOptions): Promise<LintResult> {
  const selection = selectInputs(args, { recursive: options.recursive, ...(options.stdinName ? { stdinName: options.stdinName } : {}) });
  const manifestOptions: ManifestLintOptions = options.nodeName ? { nodeName: options.nodeName } : {};
  const jobs = options.jobs ?? 1;
  let reports: FileReport[];
  const files = selection.inputs.filter((i) => i.path !== "-");
  if (jobs > 1 && options.lintElsewhere && files.length > jobs) {
    const elsewhere = await options.lintElsewhere(files, jobs, manifestOptions);
    const byPath = new Map(files.map((input, i) => [input, elsewhere[i]!]));
    reports = selection.inputs.map((input) => byPath.get(input) ?? lintInput(input, manifestOptions));
  } else {
    reports = lintInputs(selection.inputs, manifestOptions);
  }
  return assembleResult(reports, selection.inputs, selection.findings, options.config);
}

/** 1 when a finding is at least as severe as the threshold, else 0. */
export function exitCodeFor(result: LintResult, failOn: Severity): 0 | 1 {
  return result.findings.some((f) => atLeast(f.severity, failOn)) ? 1 : 0;
}
