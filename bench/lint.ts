// `make bench-lint`: manifests per second of `nodeagent staticpod lint` over generated, realistic static
// pods (kubeadm control planes, node-local load balancers and agents, some with mistakes), single
// process and with --jobs on both cores, as a ratio to plain YAML parsing (yaml.parse) of the same
// files in the same run: the machines are shared, so only the ratio is comparable between runs.
//
//   bun bench/lint.ts [--files N] [--rounds R]      (make build first; the binary is dist/nodeagent)
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { lintManifest } from "../src/lint";
import { generateLintCorpus } from "./lint-corpus";

const { values } = parseArgs({ options: { files: { type: "string", default: "2400" }, rounds: { type: "string", default: "3" } } });
const FILES = Number(values.files);
const ROUNDS = Number(values.rounds);
const BIN = resolve(import.meta.dir, "../dist/nodeagent");
const TARGET_PER_SECOND = 5000;

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return (performance.now() - t0) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function binary(dir: string, jobs: number): number {
  return timed(() => {
    const p = Bun.spawnSync([BIN, "staticpod", "lint", dir, "-o", "json", "--jobs", String(jobs), "--node-name", "node1"], { stdout: "pipe", stderr: "pipe" });
    if (p.exitCode !== 1) throw new Error(`lint exited ${p.exitCode}: ${p.stderr.toString()}`);
    const doc = JSON.parse(p.stdout.toString()) as { filesChecked: number };
    if (doc.filesChecked !== FILES) throw new Error(`lint checked ${doc.filesChecked} files, not ${FILES}`);
  });
}

const dir = mkdtempSync(join(tmpdir(), "nodeagent-bench-lint-"));
try {
  generateLintCorpus(dir, FILES);
  const paths = readdirSync(dir)
    .sort()
    .map((f) => join(dir, f));
  const lines = paths.reduce((n, p) => n + readFileSync(p, "utf8").split("\n").length, 0);
  console.log(`${FILES} manifests, ${Math.round(lines / FILES)} lines each on average; ${cpus().length} cores; median of ${ROUNDS} rounds`);

  const yamlParse = (): void => {
    for (const p of paths) parse(readFileSync(p, "utf8"), { version: "1.1" });
  };
  const lintInProcess = (): void => {
    for (const p of paths) lintManifest(readFileSync(p, "utf8"), p, { nodeName: "node1" });
  };
  yamlParse();
  lintInProcess(); // warm both up: the baseline must not pay the JIT's start-up alone
  const rows: Array<[string, number]> = [];
  const baseline = median(Array.from({ length: ROUNDS }, () => timed(yamlParse)));
  rows.push(["yaml.parse (baseline, in process)", baseline]);
  rows.push(["lint, in process (library)", median(Array.from({ length: ROUNDS }, () => timed(lintInProcess)))]);
  rows.push(["dist/nodeagent staticpod lint --jobs 1", median(Array.from({ length: ROUNDS }, () => binary(dir, 1)))]);
  rows.push(["dist/nodeagent staticpod lint --jobs 2", median(Array.from({ length: ROUNDS }, () => binary(dir, 2)))]);

  const perSecond = (s: number): number => FILES / s;
  console.log(`${"".padEnd(42)} ${"seconds".padStart(8)} ${"manifests/s".padStart(12)} ${"vs yaml.parse".padStart(14)}`);
  for (const [name, s] of rows) {
    console.log(
      `${name.padEnd(42)} ${s.toFixed(3).padStart(8)} ${Math.round(perSecond(s)).toString().padStart(12)} ${(perSecond(s) / perSecond(baseline)).toFixed(2).padStart(13)}x`,
    );
  }
  const two = perSecond(rows.at(-1)![1]);
  console.log(`target: ≥ ${TARGET_PER_SECOND} manifests/s with --jobs 2 — ${two >= TARGET_PER_SECOND ? "met" : "NOT met"} (${Math.round(two)}/s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
