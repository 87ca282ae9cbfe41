// Linting one manifest's text: the shared decoder and pod checks of src/manifest (the very code the
// agent loads pods with) give the errors; this file names their rules, positions them, adds the
// practice checks and applies the pod's own `lint.nodeagent.io/ignore` annotation.
import { isDNS1123Subdomain, type FieldError } from "../api";
import { checkManifestKind, checkPodObject, parseManifest, type DecodeProblemCode, type Locator, type PodOrigin, type PodProblem } from "../manifest";
import { checkPractices, isControlPlanePod } from "./practices";
import { isRuleId, ruleById } from "./rules";
import { parseIgnoreAnnotation } from "./suppress";
import type { FileReport, Finding, PodIdentity } from "./types";
import { closest } from "../util";

export interface ManifestLintOptions {
  /** The node the kubelet runs on: the pod's name gets "-<node>" before it is validated. */
  nodeName?: string;
}

const DECODE_RULES: Record<DecodeProblemCode, string> = {
  "too-large": "file-too-large",
  empty: "empty-manifest",
  syntax: "yaml-syntax",
  undecodable: "yaml-syntax",
  "duplicate-key": "duplicate-key",
  "multiple-documents": "multiple-documents",
};

/**
 * Whether the decoder gave up on the text: a syntax error or a document that cannot be decoded. The
 * parser and the decoder recurse, so this is also how running out of stack shows (absurd nesting:
 * thousands of levels), and that depends on the thread's stack size: see jobs.ts.
 */
export function decodeFailed(report: FileReport): boolean {
  return report.findings.some((f) => f.rule === DECODE_RULES.syntax || f.rule === DECODE_RULES.undecodable);
}

/** Which validation rule a ValidatePodCreate error belongs to, by the field it names. */
function validationRule(e: FieldError, rawName: string, nodeName: string | undefined): string {
  const f = e.field;
  if (f === "metadata.name" && nodeName && isDNS1123Subdomain(rawName).length === 0) return "name-with-node-suffix";
  if (f.startsWith("metadata.")) return "invalid-metadata";
  if (f.startsWith("spec.ephemeralContainers")) return "ephemeral-containers";
  if (f === "spec.nodeName" && e.detail?.includes("schedulingGates")) return "scheduling-gates";
  if (/\.ports(\[|$)/.test(f)) return "invalid-port";
  if (/\.(livenessProbe|readinessProbe|startupProbe|lifecycle)(\.|$)/.test(f)) return "invalid-handler";
  if (/\.env(From)?(\[|$)/.test(f)) return "invalid-env";
  if (f.startsWith("spec.volumes")) return "invalid-volume";
  if (/\.volumeMounts(\[|\.|$)/.test(f)) return "invalid-volume-mount";
  if (/\.resources(\.|$)/.test(f)) return "invalid-resources";
  if (/^spec\.(initContainers|containers)(\[|$)/.test(f)) return "invalid-container";
  return "invalid-pod-spec";
}

/** The rule of a pod problem, and the message as the kubelet words it (with the field path). */
function podProblemRule(p: PodProblem, rawName: string, nodeName: string | undefined): { rule: string; message: string } {
  switch (p.stage) {
    case "kind":
      return { rule: "not-a-pod", message: p.field && p.at === p.field ? `${p.field}: ${p.message}` : p.message };
    case "type":
      return { rule: "wrong-type", message: `${p.field}: ${p.message}` };
    case "name":
      return { rule: "name-required", message: p.message };
    case "validation":
      return { rule: validationRule(p.error!, rawName, nodeName), message: p.error!.message };
    case "api-reference":
      return { rule: "static-pod-api-reference", message: p.message };
  }
}

/** The closest known field name, when one is close enough to be a typo of the unknown one. */
function suggestion(unknown: string, known: readonly string[]): string | undefined {
  return closest(unknown.replace(/^.*[.[]/, "").replace(/\]$/, ""), known);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The pod's namespace and name as the kubelet keys it (namespace "default" when empty). */
function identity(value: Record<string, unknown>, locate: Locator): PodIdentity | undefined {
  const meta = value.metadata;
  if (!isRecord(meta) || typeof meta.name !== "string" || meta.name === "") return undefined;
  const namespace = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : "default";
  return { namespace, name: meta.name, at: locate("metadata.name") };
}

class ReportBuilder {
  readonly findings: Finding[] = [];

  constructor(
    private readonly file: string,
    private readonly locate: Locator,
  ) {}

  add(rule: string, field: string, message: string, options: { part?: "key"; hint?: string; at?: string } = {}): void {
    const r = ruleById(rule)!;
    const range = this.locate(options.at ?? field, options.part);
    this.findings.push({ file: this.file, ...range, field, rule, severity: r.severity, message, hint: options.hint ?? r.hint });
  }
}

/**
 * Lints one manifest. `file` names it in findings. Never throws: whatever the text, the result is
 * findings (a file that is not a pod at all gets the error that says so).
 */
export function lintManifest(text: string, file: string, options: ManifestLintOptions = {}): FileReport {
  const parsed = parseManifest(text);
  const report = new ReportBuilder(file, parsed.locate);
  for (const p of parsed.problems) {
    const rule = DECODE_RULES[p.code];
    report.findings.push({
      file,
      line: p.line,
      column: p.column,
      endLine: p.endLine,
      endColumn: p.endColumn,
      field: "",
      rule,
      severity: ruleById(rule)!.severity,
      message: p.message,
      hint: ruleById(rule)!.hint,
    });
  }
  let pod: PodIdentity | undefined;
  let ignored: string[] = [];
  if (parsed.value !== undefined) {
    const origin: PodOrigin = { source: "file", location: file, nodeName: options.nodeName ?? "" };
    const kind = checkManifestKind(parsed.value, origin);
    if (Array.isArray(kind)) {
      for (const p of kind) report.add("not-a-pod", p.field, podProblemRule(p, "", undefined).message, { at: p.at });
    } else {
      const value = parsed.value as Record<string, unknown>;
      pod = identity(value, parsed.locate);
      const ignore = parseIgnoreAnnotation(value);
      ignored = ignore.rules.filter(isRuleId);
      for (const id of ignore.rules.filter((r) => !isRuleId(r))) {
        report.add("invalid-ignore-annotation", ignore.field, `unknown rule ${JSON.stringify(id)} in the ${ignore.key} annotation`);
      }
      const check = checkPodObject(value, origin, { staticPod: false });
      for (const u of check.unknownFields) {
        const near = suggestion(u.field, u.known);
        const message = `${u.field}: unknown field; the kubelet drops it${near ? ` (did you mean ${JSON.stringify(near)}?)` : ""}`;
        report.add("unknown-field", u.field, message, {
          part: "key",
          ...(near ? { hint: `Did you mean ${JSON.stringify(near)}? The kubelet ignores the field as written.` } : {}),
        });
      }
      for (const p of check.problems) {
        const { rule, message } = podProblemRule(p, pod?.name ?? "", options.nodeName);
        // The kubelet sets spec.nodeName itself: show the gates that make it an error instead.
        report.add(rule, p.field, message, {
          at: rule === "scheduling-gates" ? "spec.schedulingGates" : p.at,
          ...(rule === "scheduling-gates" ? { part: "key" as const } : {}),
        });
      }
      if (check.pod) {
        const exempt = isControlPlanePod(check.pod);
        for (const f of checkPractices(check.pod)) {
          if (exempt && ruleById(f.rule)?.controlPlaneExempt) continue;
          report.add(f.rule, f.field, f.message, f.part ? { part: f.part } : {});
        }
      }
    }
  }
  const findings = report.findings.filter((f) => !ignored.includes(f.rule)).sort((a, b) => a.line - b.line || a.column - b.column);
  // The line of metadata.name too: a finding about the whole directory may point there later.
  const lines = pod ? [...findings.map((f) => f.line), pod.at.line] : findings.map((f) => f.line);
  return { file, findings, ...(pod ? { pod } : {}), ignored, excerpts: excerpts(text, lines) };
}

/** The source lines findings point at (at most 500 characters each: enough to show a caret). */
export function excerpts(text: string, lineNumbers: readonly number[]): Record<number, string> {
  const wanted = new Set(lineNumbers);
  const out: Record<number, string> = {};
  if (wanted.size === 0) return out;
  let line = 1;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf("\n", start);
    const stop = end < 0 ? text.length : end;
    if (wanted.has(line)) out[line] = text.slice(start, Math.min(stop, start + 500)).replace(/\r$/, "");
    if (end < 0) break;
    start = end + 1;
    line++;
  }
  return out;
}
