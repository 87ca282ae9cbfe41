// Mutates the valid corpus many ways, deterministically, and asserts the linter never throws and that
// every finding points inside the file it is about. Also the inputs nobody writes on purpose: binary,
// deep nesting, huge scalars, wrong types everywhere.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatResult, isRuleId, lintManifest, SEVERITIES, type FileReport } from "../../src/lint";
import { assembleResult } from "../../src/lint/run";
import { mutate, prng } from "./mutate";

const VALID = join(import.meta.dir, "../fixtures/lint/valid");
const SEEDS = readdirSync(VALID)
  .sort()
  .map((name) => readFileSync(join(VALID, name), "utf8"));

function assertWellFormed(text: string, report: FileReport): void {
  const lines = text.split("\n");
  for (const f of report.findings) {
    const where = `${f.rule} ${f.line}:${f.column}-${f.endLine}:${f.endColumn}`;
    expect(isRuleId(f.rule), where).toBe(true);
    expect(SEVERITIES.includes(f.severity), where).toBe(true);
    expect(f.line >= 1 && f.line <= lines.length, where).toBe(true);
    expect(f.column >= 1 && f.column <= (lines[f.line - 1]?.length ?? 0) + 1, where).toBe(true);
    expect(f.endLine >= f.line && f.endLine <= lines.length, where).toBe(true);
    if (f.endLine === f.line && f.rule !== "backup-file") expect(f.endColumn > f.column || f.column === 1, where).toBe(true);
    expect(f.message.length > 0, where).toBe(true);
  }
}

describe("fuzz: mutated manifests", () => {
  const ROUNDS = 1500;
  test(`${ROUNDS} mutations of the valid corpus: findings, never a throw, positions inside the file`, () => {
    let withFindings = 0;
    for (let seed = 1; seed <= ROUNDS; seed++) {
      const rand = prng(seed);
      const text = mutate(SEEDS[seed % SEEDS.length]!, rand);
      let report: FileReport;
      try {
        report = lintManifest(text, "fuzz.yaml", seed % 2 === 0 ? { nodeName: "node1" } : {});
      } catch (e) {
        throw new Error(`seed ${seed} threw ${(e as Error).stack}\n--- input ---\n${text}`);
      }
      assertWellFormed(text, report);
      if (report.findings.length > 0) withFindings++;
      // Every reporter copes with whatever came out.
      const result = assembleResult([report], [], [], { rules: {} });
      for (const format of ["text", "json", "sarif", "github", "junit"] as const) formatResult(result, format, { failOn: "error", toolVersion: "0" });
    }
    // The mutations must actually break things, or this test proves little.
    expect(withFindings).toBeGreaterThan(ROUNDS / 2);
  }, 30_000); // ~2 s alone; a loaded 2-core machine has taken 6.5 s
});

describe("fuzz: hostile inputs", () => {
  const cases: Array<[string, string]> = [
    ["binary", Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)).toString("latin1")],
    ["NUL bytes", "apiVersion: v1\nkind: Pod\u0000\nmetadata: {name: x}\n"],
    ["deep nesting (flow)", "a: " + "[".repeat(20000) + "]".repeat(20000)],
    ["deep nesting (block)", Array.from({ length: 3000 }, (_, i) => `${" ".repeat(i)}k:`).join("\n") + " 1\n"],
    [
      "alias bomb",
      "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
    ],
    ["recursive alias", "a: &a\n  b: *a\n"],
    ["huge scalar", `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${"x".repeat(2_000_000)}\nspec:\n  containers: []\n`],
    ["a list", "- a\n- b\n"],
    ["a scalar", "hello\n"],
    ["wrong types everywhere", "apiVersion: 1\nkind: [Pod]\nmetadata: 5\nspec: true\n"],
    [
      "pod with wrong types everywhere",
      "apiVersion: v1\nkind: Pod\nmetadata: {name: [x], labels: [1], annotations: 7}\nspec: {containers: {a: 1}, volumes: 3, hostNetwork: {}, tolerations: [1, 2]}\n",
    ],
    ["only comments", "# nothing\n# here\n"],
    ["CRLF", "apiVersion: v1\r\nkind: Pod\r\nmetadata:\r\n  name: web\r\nspec:\r\n  containers:\r\n  - name: app\r\n    image: nginx\r\n"],
    ["BOM", "\uFEFFapiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: app\n    image: nginx:1\n"],
    ["lone surrogates", 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "\\ud800"\n'],
  ];
  for (const [name, text] of cases) {
    test(name, () => {
      const report = lintManifest(text, "hostile.yaml", { nodeName: "node1" });
      assertWellFormed(text, report);
      expect(report.findings.length).toBeGreaterThan(0);
      const result = assembleResult([report], [], [], { rules: {} });
      for (const format of ["text", "json", "sarif", "github", "junit"] as const) formatResult(result, format, { failOn: "error", toolVersion: "0" });
    });
  }
});
