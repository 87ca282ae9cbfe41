import { Validator } from "@cfworker/json-schema";
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Log } from "sarif";
import { formatResult, lintManifest, RULES, runLint, type Finding, type LintResult } from "../../src/lint";
import { BROKEN_EXPECTED } from "./corpus-expected";

const CORPUS = join(import.meta.dir, "../fixtures/lint");
const VALID = join(CORPUS, "valid");
const BROKEN = join(CORPUS, "broken");
const MANIFEST_DIR = join(CORPUS, "manifest-dir");
/** SARIF 2.1.0's JSON schema as the SARIF SDK ships it (microsoft/sarif-js-sdk, @microsoft/jest-sarif). */
const SARIF_SCHEMA = JSON.parse(readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"));

const short = (f: Finding): string => `${f.line}:${f.column}-${f.endLine}:${f.endColumn} ${f.severity} ${f.rule} ${f.field}`.trimEnd();

describe("the valid corpus", () => {
  const files = readdirSync(VALID).sort();

  test("holds the kubeadm control plane and hardened pods", () => {
    for (const name of ["kube-apiserver.yaml", "etcd.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml"]) expect(files).toContain(name);
  });

  for (const name of files) {
    test(`${name} has no findings, with and without a node name`, () => {
      const text = readFileSync(join(VALID, name), "utf8");
      expect(lintManifest(text, name, { nodeName: "node1" }).findings.map(short)).toEqual([]);
      expect(lintManifest(text, name).findings.map(short)).toEqual([]);
    });
  }

  test("the control plane is exempt only from what it cannot meet", () => {
    // Moved out of kube-system, the same apiserver gets the warnings Polaris exempts it from.
    const text = readFileSync(join(VALID, "kube-apiserver.yaml"), "utf8").replace("namespace: kube-system", "namespace: default");
    const rules = new Set(lintManifest(text, "x.yaml").findings.map((f) => f.rule));
    expect([...rules].sort()).toEqual(["host-namespaces", "missing-resources", "run-as-non-root"]);
  });
});

describe("the broken corpus", () => {
  const files = readdirSync(BROKEN).sort();

  test("every broken manifest has its expectations, and the other way round", () => {
    expect(files).toEqual(Object.keys(BROKEN_EXPECTED).sort());
  });

  for (const name of files) {
    test(`${name}: findings at exact positions`, () => {
      const report = lintManifest(readFileSync(join(BROKEN, name), "utf8"), name, { nodeName: "node1" });
      expect(report.findings.map(short)).toEqual(BROKEN_EXPECTED[name]!);
      for (const f of report.findings) {
        expect(f.file).toBe(name);
        expect(f.message.length).toBeGreaterThan(0);
        expect(f.hint.length).toBeGreaterThan(0);
      }
    });
  }

  test("every rule is exercised by the corpus (file-too-large has its own test)", async () => {
    const seen = new Set(
      Object.values(BROKEN_EXPECTED)
        .flat()
        .map((line) => line.split(" ")[2]!),
    );
    const dir = await runLint([MANIFEST_DIR], { config: { rules: {} }, nodeName: "node1" });
    for (const f of dir.findings) seen.add(f.rule);
    const missing = RULES.map((r) => r.id).filter((id) => !seen.has(id) && id !== "file-too-large");
    expect(missing).toEqual([]);
  });
});

describe("a manifest directory, as the kubelet reads it", () => {
  test("dotfiles are skipped, a backup is flagged and duplicates its original, subdirectories are not read", async () => {
    const result = await runLint([MANIFEST_DIR], { config: { rules: {} }, nodeName: "node1" });
    const rel = (f: Finding): string => `${f.file.slice(MANIFEST_DIR.length + 1)} ${short(f)}`;
    expect(result.filesChecked).toBe(3);
    expect(result.findings.map(rel)).toEqual([
      "kube-scheduler.yaml.bak 1:1-1:1 warning backup-file",
      "kube-scheduler.yaml.bak 8:9-8:23 error duplicate-pod-name metadata.name",
      "old 1:1-1:1 info ignored-directory",
    ]);
    expect(result.findings[1]!.message).toBe(
      `pod "kube-system/kube-scheduler" is also defined in ${MANIFEST_DIR}/kube-scheduler.yaml:8:9; the kubelet runs only one of the two, and which one is undefined`,
    );
  });
});

describe("every output format carries every finding", () => {
  let result: LintResult;
  const run = async (): Promise<LintResult> => (result ??= await runLint([BROKEN, MANIFEST_DIR], { config: { rules: {} }, nodeName: "node1" }));
  const options = { failOn: "error" as const, toolVersion: "0.1.0" };

  test("json", async () => {
    const r = await run();
    const doc = JSON.parse(formatResult(r, "json", options));
    expect(doc.filesChecked).toBe(r.filesChecked);
    expect(doc.findings).toEqual(r.findings.map((f) => ({ ...f })));
    expect(doc.summary.error).toBe(r.findings.filter((f) => f.severity === "error").length);
  });

  test("sarif: valid SARIF 2.1.0 with the real regions", async () => {
    const r = await run();
    const log = JSON.parse(formatResult(r, "sarif", options)) as Log;
    const validator = new Validator(SARIF_SCHEMA, "4", false);
    const validation = validator.validate(log);
    expect(validation.errors).toEqual([]);
    expect(validation.valid).toBe(true);
    // The schema does bite: a region that starts at column 0 is rejected.
    const broken = structuredClone(log);
    broken.runs[0]!.results![0]!.locations![0]!.physicalLocation!.region!.startColumn = 0;
    expect(validator.validate(broken).valid).toBe(false);
    const run0 = log.runs[0]!;
    expect(run0.tool.driver.rules!.map((d) => d.id)).toEqual(RULES.map((x) => x.id));
    expect(run0.results!.length).toBe(r.findings.length);
    run0.results!.forEach((res, i) => {
      const f = r.findings[i]!;
      expect(res.ruleId).toBe(f.rule);
      expect(run0.tool.driver.rules![res.ruleIndex!]!.id).toBe(f.rule);
      expect(res.level).toBe(f.severity === "info" ? "note" : f.severity);
      const loc = res.locations![0]!.physicalLocation!;
      expect(decodeURIComponent(loc.artifactLocation!.uri!.replace(/^file:\/\//, ""))).toBe(f.file);
      expect(loc.region!.startLine).toBe(f.line);
      expect(loc.region!.startColumn).toBe(f.column);
      expect(loc.region!.endLine).toBe(f.endLine);
    });
  });

  test("github: one annotation per finding, at its position", async () => {
    const r = await run();
    const lines = formatResult(r, "github", options).trimEnd().split("\n");
    expect(lines.length).toBe(r.findings.length);
    lines.forEach((line, i) => {
      const f = r.findings[i]!;
      const m = /^::(error|warning|notice) file=([^,]*),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),title=([^:]*)::(.*)$/.exec(line);
      expect(m).not.toBeNull();
      expect(m![1]).toBe(f.severity === "info" ? "notice" : f.severity);
      expect(m![2]).toBe(f.file);
      expect([m![3], m![4], m![5], m![6]].map(Number)).toEqual([f.line, f.column, f.endLine, f.endColumn]);
      expect(m![7]).toStartWith(f.rule);
      expect(m![8]).not.toContain("\n");
    });
  });

  test("junit: a suite per file, a failed case per error, passed cases for the rest", async () => {
    const r = await run();
    const xml = formatResult(r, "junit", options);
    expect(xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>');
    const errors = r.findings.filter((f) => f.severity === "error").length;
    expect(xml.match(/<failure /g)?.length).toBe(errors);
    expect(xml).toContain(`failures="${errors}"`);
    expect(xml.match(/<testsuite /g)?.length).toBe(r.reports.length);
    for (const f of r.findings) expect(xml).toContain(`name="${f.rule} at ${f.line}:${f.column}`);
    // Well-formed enough for any parser: every open tag is closed, nothing unescaped.
    expect(xml.match(/<testcase /g)?.length).toBe(xml.match(/<\/testcase>|<testcase [^>]*\/>/g)?.length);
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
  });

  test("text: every finding with its position, rule and a caret under the source", async () => {
    const r = await run();
    const text = formatResult(r, "text", options);
    for (const f of r.findings) expect(text).toContain(`  ${`${f.line}:${f.column}`.padEnd(8)} ${f.severity.padEnd(7)} ${f.message}  [${f.rule}]`);
    expect(text.trimEnd().split("\n").at(-1)).toMatch(/^✖ \d+ errors, \d+ warnings, 1 info in \d+ files checked \(\d+ clean\)$/);
    // The caret of the containerPort finding sits under the value.
    const block = text.split("\n");
    const at = block.findIndex((l) => l.includes("ports[0].hostPort: Invalid value: 80"));
    expect(block[at + 1]).toBe("    13 |       hostPort: 80");
    expect(block[at + 2]).toBe("       |                 ^^");
  });
});
