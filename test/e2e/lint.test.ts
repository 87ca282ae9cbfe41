// `nodeagent staticpod lint` as users run it: the compiled binary (make build) on the corpus, every
// output format, standard input, configuration, parallel jobs, exit codes, and inputs that must give
// a clear message rather than a stack trace.
import { Validator } from "@cfworker/json-schema";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FILES_PER_THREAD, RULES, runLint } from "../../src/lint";

const ROOT = resolve(import.meta.dir, "../..");
const BIN = join(ROOT, "dist/nodeagent");
const CORPUS = "test/fixtures/lint";
const SARIF_SCHEMA = JSON.parse(readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function lint(args: string[], options: { stdin?: string; cwd?: string } = {}): Run {
  const p = Bun.spawnSync([BIN, "staticpod", "lint", ...args], {
    cwd: options.cwd ?? ROOT,
    stdin: options.stdin !== undefined ? Buffer.from(options.stdin) : "ignore",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: p.exitCode ?? -1, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
}

/** A stack trace has "    at " frames; a clear message has none. */
function expectNoStackTrace(run: Run): void {
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stdout).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
}

let tmp: string;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run make build first`);
  tmp = mkdtempSync(join(tmpdir(), "nodeagent-lint-e2e-"));
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("exit codes", () => {
  test("the valid corpus: exit 0", () => {
    const run = lint([`${CORPUS}/valid`, "--node-name", "node1"]);
    expect(run.stdout).toBe("✓ 6 files checked, no problems\n");
    expect(run.code).toBe(0);
  });

  test("the broken corpus: exit 1, every file reported", () => {
    const run = lint([`${CORPUS}/broken`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${CORPUS}/broken/bad-ports.yaml\n`);
    expect(run.stdout).toMatch(/^✖ \d+ errors, \d+ warnings, 0 info in 25 files checked \(0 clean\)$/m);
  });

  test("warnings alone: exit 0, or 1 with --fail-on warning", () => {
    const file = `${CORPUS}/broken/fixed-uid.yaml`;
    expect(lint([file]).code).toBe(0);
    expect(lint([file, "--fail-on", "warning"]).code).toBe(1);
  });

  test("usage and I/O errors: exit 2 with a clear message", () => {
    const missing = lint(["no/such/dir"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("error: no/such/dir: no such file or directory\n");
    const notDir = lint([`${CORPUS}/valid/etcd.yaml/inside`]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toStartWith(`error: ${CORPUS}/valid/etcd.yaml/inside: `);
    const noArgs = lint([]);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain("give the manifests to check");
    expect(lint([".", "-o", "yaml"]).code).toBe(2);
    for (const run of [missing, notDir, noArgs]) expectNoStackTrace(run);
  });
});

describe("output formats", () => {
  test("json matches the library's result exactly", async () => {
    const run = lint([`${CORPUS}/broken`, "-o", "json", "--node-name", "node1"]);
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    const expected = await runLint(
      [`${CORPUS}/broken`].map((p) => join(ROOT, p)),
      { config: { rules: {} }, nodeName: "node1" },
    );
    const relative = (file: string): string => file.replace(`${ROOT}/`, "");
    expect(doc.findings).toEqual(expected.findings.map((f) => ({ ...f, file: relative(f.file) })));
  });

  test("sarif validates against the SARIF 2.1.0 schema", () => {
    const run = lint([`${CORPUS}/broken`, `${CORPUS}/manifest-dir`, "-o", "sarif"]);
    expect(run.code).toBe(1);
    const log = JSON.parse(run.stdout);
    expect(new Validator(SARIF_SCHEMA, "4", false).validate(log).errors).toEqual([]);
    expect(log.runs[0].results.length).toBeGreaterThan(100);
    const region = log.runs[0].results.find((r: { ruleId: string }) => r.ruleId === "duplicate-pod-name").locations[0].physicalLocation;
    expect(region.artifactLocation.uri).toBe(`${CORPUS}/manifest-dir/kube-scheduler.yaml.bak`);
    expect(region.region).toEqual({ startLine: 8, startColumn: 9, endLine: 8, endColumn: 23 });
  });

  test("github annotations and junit", () => {
    const gh = lint([`${CORPUS}/broken/bad-ports.yaml`, "-o", "github"]);
    expect(gh.code).toBe(1);
    expect(gh.stdout).toContain(
      `::error file=${CORPUS}/broken/bad-ports.yaml,line=16,col=17,endLine=16,endColumn=20,title=invalid-port (nodeagent staticpod lint)::`,
    );
    const junit = lint([`${CORPUS}/broken/bad-ports.yaml`, "-o", "junit"]);
    expect(junit.code).toBe(1);
    expect(junit.stdout).toContain('<testsuites name="nodeagent staticpod lint" tests="14" failures="5" errors="0">');
  });

  test("--list-rules documents every rule, as text and json", () => {
    const text = lint(["--list-rules"]);
    expect(text.code).toBe(0);
    for (const r of RULES) expect(text.stdout).toContain(`${r.id.padEnd(26)} ${r.severity}`);
    const json = JSON.parse(lint(["--list-rules", "-o", "json"]).stdout);
    expect(json.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));
  });
});

describe("inputs", () => {
  test("standard input, named by --stdin-name", () => {
    const text = readFileSync(join(ROOT, CORPUS, "broken/bad-ports.yaml"), "utf8");
    const run = lint(["-", "--stdin-name", "ports.yaml", "-o", "json"], { stdin: text });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(new Set(doc.findings.map((f: { file: string }) => f.file))).toEqual(new Set(["ports.yaml"]));
    expect(doc.findings.some((f: { rule: string; line: number }) => f.rule === "invalid-port" && f.line === 16)).toBe(true);
    const plain = lint(["-"], { stdin: "apiVersion: v1\nkind: Pod\n" });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain("<stdin>\n");
  });

  test("--recursive walks a repository, taking only YAML and JSON files", () => {
    const run = lint([CORPUS, "-R", "-o", "json"]);
    const files = new Set(JSON.parse(run.stdout).findings.map((f: { file: string }) => f.file));
    expect(files.has(`${CORPUS}/manifest-dir/old/kube-apiserver.yaml`)).toBe(false); // a valid file: no findings
    expect(files.has(`${CORPUS}/manifest-dir/kube-scheduler.yaml.bak`)).toBe(false); // not YAML by name
    expect(JSON.parse(run.stdout).filesChecked).toBe(6 + 25 + 3);
  });

  test("--jobs 2 gives the same result as one process", () => {
    const args = [`${CORPUS}/broken`, `${CORPUS}/valid`, `${CORPUS}/manifest-dir`, "-o", "json", "--node-name", "node1"];
    const one = lint(args);
    const two = lint([...args, "--jobs", "2"]);
    expect(two.code).toBe(one.code);
    expect(two.stdout).toBe(one.stdout);
    expect(JSON.parse(two.stdout).filesChecked).toBe(34);
  });

  test("--jobs 2 on enough files for a worker thread (the binary's second entry point) gives one thread's output", () => {
    // A worker is started only for every FILES_PER_THREAD files (src/lint/jobs.ts); the corpus's files
    // copied until there are two threads' worth, so the run also meets duplicate pod names.
    const dir = join(tmp, "many");
    mkdirSync(dir);
    const sources = readdirSync(`${CORPUS}/valid`).map((f) => readFileSync(join(ROOT, CORPUS, "valid", f), "utf8"));
    const files = 2 * FILES_PER_THREAD;
    for (let i = 0; i < files; i++) writeFileSync(join(dir, `pod-${String(i).padStart(5, "0")}.yaml`), sources[i % sources.length]!);
    const args = [dir, "-o", "json", "--node-name", "node1"];
    const one = lint(args);
    const two = lint([...args, "--jobs", "2"]);
    expect(two.stderr).toBe("");
    expect(two.code).toBe(one.code);
    expect(two.stdout).toBe(one.stdout);
    expect(JSON.parse(two.stdout).filesChecked).toBe(files);
  }, 60_000);

  test("hostile files: findings and exit 1, never a stack trace", () => {
    const files: Record<string, string | Buffer> = {
      "binary.yaml": Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 31) % 256)),
      "deep.yaml": "a: " + "[".repeat(50000) + "]".repeat(50000),
      "types.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: [x]}\nspec: {containers: 7}\n",
    };
    for (const [name, content] of Object.entries(files)) writeFileSync(join(tmp, name), content);
    const run = lint([tmp, "-o", "json"]);
    expectNoStackTrace(run);
    expect(run.code).toBe(1);
    const rules = JSON.parse(run.stdout).findings.map((f: { file: string; rule: string }) => `${f.file.slice(tmp.length + 1)} ${f.rule}`);
    expect(rules).toContain("types.yaml wrong-type");
    expect(rules.some((r: string) => r.startsWith("binary.yaml "))).toBe(true);
    expect(rules.some((r: string) => r.startsWith("deep.yaml "))).toBe(true);
  });

  test("a file past the kubelet's 10 MB is reported without being read whole", () => {
    const dir = mkdtempSync(join(tmp, "large-"));
    writeFileSync(join(dir, "huge.yaml"), Buffer.alloc(11 * 1024 * 1024, "#"));
    const run = lint([dir, "-o", "json"]);
    expect(run.code).toBe(1);
    const [f] = JSON.parse(run.stdout).findings;
    expect(f.rule).toBe("file-too-large");
    expect(f.message).toBe("manifest is 11534336 bytes; the kubelet reads at most 10485760 bytes (maxConfigLength, 10 MB)");
  });
});

describe("configuration", () => {
  test(".nodeagent-lint.yaml is found upward from the working directory", () => {
    const repo = mkdtempSync(join(tmp, "repo-"));
    const sub = join(repo, "manifests");
    Bun.spawnSync(["mkdir", "-p", sub]);
    writeFileSync(join(sub, "web.yaml"), readFileSync(join(ROOT, CORPUS, "broken/fixed-uid.yaml")));
    expect(lint(["web.yaml", "--fail-on", "warning"], { cwd: sub }).code).toBe(1);
    writeFileSync(
      join(repo, ".nodeagent-lint.yaml"),
      "rules:\n  fixed-uid: error\n  missing-resources: off\n  missing-liveness-probe: off\n  missing-readiness-probe: off\n  run-as-non-root: info\n",
    );
    const run = lint(["web.yaml", "-o", "json"], { cwd: sub });
    expect(run.code).toBe(1);
    const findings = JSON.parse(run.stdout).findings.map((f: { rule: string; severity: string }) => `${f.rule} ${f.severity}`);
    expect(findings).toEqual(["fixed-uid error", "run-as-non-root info"]);
  });

  test("a broken configuration is a usage error that says what is wrong", () => {
    const bad = join(tmp, "bad-config.yaml");
    writeFileSync(bad, "rules:\n  no-such-rule: off\n");
    const run = lint([`${CORPUS}/valid`, "--config", bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toStartWith(`error: ${bad}: rules: unknown rule "no-such-rule" (see nodeagent staticpod lint --list-rules)`);
    expectNoStackTrace(run);
  });
});
