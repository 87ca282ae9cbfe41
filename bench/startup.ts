// `make bench-startup`: how fast the binary starts, against a floor built here in the same run — a
// Bun hello-world compiled with this same bun (--compile) — and against the binary before (--baseline)
// when one is given, all interleaved (each round runs every command once, in a rotated
// order) so that a busy machine slows every row alike. The rows, with the targets:
//   nodeagent --version                      ≤ 4× the floor
//   nodeagent staticpod lint (one file)      ≤ 6× the floor
//   staticpod lint --jobs 2 vs --jobs 1      on 2,000 generated files: ≥ 1.5× faster
// beside what two threads give at that moment: a plain JS loop on one thread and split over two.
// Figures are wall-clock medians and 90th percentiles of spawning the process until it exits, with
// the CPU it used (user + system): on a shared machine only the ratios of one run compare.
//
//   bun bench/startup.ts      (make build first; dist/nodeagent is the binary measured)
//   STARTUP_RUNS=40           rounds of the start-up rows
//   STARTUP_FILES=2000        generated manifests for the --jobs rows (--jobs 2 starts a worker from 4,000)
//   STARTUP_JOBS_RUNS=7       rounds of the --jobs rows (0: skip them)
//   --baseline PATH           the binary to compare with (make bench-startup BASELINE=PATH; absent: not shown)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { FILES_PER_THREAD, threadsFor } from "../src/lint/jobs";
import { baselineFromArgs } from "./baseline";
import { generateLintCorpus } from "./lint-corpus";

const ROOT = resolve(import.meta.dir, "..");
const AFTER = join(ROOT, "dist/nodeagent");
const BASELINE = baselineFromArgs();
const RUNS = Number(process.env.STARTUP_RUNS ?? 40);
const FILES = Number(process.env.STARTUP_FILES ?? 2000);
const JOBS_RUNS = Number(process.env.STARTUP_JOBS_RUNS ?? 7);
/** The largest pod of the valid corpus: what a one-file lint of a real static pod costs. */
const ONE_FILE = join(ROOT, "test/fixtures/lint/valid/kube-apiserver.yaml");

interface Row {
  name: string;
  argv: string[];
  /** The exit status the command must have; the first run's output is checked by `check`. */
  exit: number;
  check?: (stdout: string) => string | undefined;
  wallMs: number[];
  cpuMs: number[];
  /** The first run's standard output, to compare rows that must print the same. */
  stdout?: string;
}

function row(name: string, argv: string[], exit = 0, check?: Row["check"]): Row {
  return { name, argv, exit, ...(check ? { check } : {}), wallMs: [], cpuMs: [] };
}

function runOnce(r: Row): void {
  const t0 = performance.now();
  const p = Bun.spawnSync(r.argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const wall = performance.now() - t0;
  if (r.stdout === undefined) {
    const out = p.stdout.toString();
    if (p.exitCode !== r.exit) throw new Error(`${r.name}: exit ${p.exitCode}, expected ${r.exit}: ${p.stderr.toString().slice(0, 500)}`);
    const wrong = r.check?.(out);
    if (wrong) throw new Error(`${r.name}: ${wrong}`);
    r.stdout = out;
  }
  r.wallMs.push(wall);
  r.cpuMs.push(Number(p.resourceUsage.cpuTime.total) / 1000);
}

/** Runs every row `rounds` times, each round in a rotated order; the first round is a warm-up (page cache). */
function interleaved(rows: Row[], rounds: number): void {
  for (const r of rows) runOnce(r);
  for (const r of rows) {
    r.wallMs.length = 0;
    r.cpuMs.length = 0;
  }
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < rows.length; k++) runOnce(rows[(round + k) % rows.length]!);
  }
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const p50 = (r: Row) => quantile(r.wallMs, 0.5);
const ms = (x: number) => `${x.toFixed(1)} ms`;

function table(rows: Row[], ratioTo: (r: Row) => string): void {
  console.log(`  ${"".padEnd(44)} ${"p50".padStart(10)} ${"p90".padStart(10)} ${"cpu p50".padStart(10)}   ratio`);
  for (const r of rows) {
    console.log(
      `  ${r.name.padEnd(44)} ${ms(p50(r)).padStart(10)} ${ms(quantile(r.wallMs, 0.9)).padStart(10)} ${ms(quantile(r.cpuMs, 0.5)).padStart(10)}   ${ratioTo(r)}`,
    );
  }
}

function verdict(ok: boolean): string {
  return ok ? "met" : "NOT met";
}

/** The plain loop: objects, strings and arrays, split over `argv[2]` threads (this one and workers). */
const LOOP_SOURCE = `
const N = 12_000_000;
function work(n) { let acc = 0; for (let i = 0; i < n; i++) { const o = { a: i, b: "x" + (i % 100), c: [i, i + 1] }; acc += o.c.length + o.b.length + (o.a & 7); } return acc; }
if (typeof self !== "undefined" && !Bun.isMainThread) self.onmessage = (e) => { postMessage(work(e.data)); };
else {
  const threads = Number(process.argv[2] ?? 1);
  const workers = Array.from({ length: threads - 1 }, () => new Worker(import.meta.path));
  const done = workers.map((w) => new Promise((resolve) => { w.onmessage = () => { w.terminate(); resolve(); }; w.postMessage(Math.floor(N / threads)); }));
  work(Math.floor(N / threads));
  await Promise.all(done);
}
`;

const tmp = mkdtempSync(join(tmpdir(), "nodeagent-bench-startup-"));
try {
  if (!existsSync(AFTER)) throw new Error(`${AFTER} is missing: run make build first`);
  const before = BASELINE.path;

  // The floor: the smallest program this bun compiles, built now so that it is the same bun.
  writeFileSync(join(tmp, "hello.ts"), 'console.log("hello");\n');
  const build = Bun.spawnSync([process.execPath, "build", "--compile", join(tmp, "hello.ts"), "--outfile", join(tmp, "hello")], {
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`building the hello-world floor failed: ${build.stderr.toString()}`);

  console.log(
    `nodeagent start-up: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}, bun ${Bun.version}`,
  );
  console.log(`after:  ${AFTER}`);
  console.log(BASELINE.note);
  console.log(`floor:  a Bun hello-world, bun build --compile (${process.execPath})`);
  console.log("");

  const version = (out: string) => (out.trim() === pkg.version ? undefined : `printed ${JSON.stringify(out.trim())}, not ${pkg.version}`);
  const oneFile = (out: string) => (out.startsWith("✓ 1 file checked") ? undefined : `printed ${JSON.stringify(out.slice(0, 80))}`);
  const floor = row("hello-world (floor)", [join(tmp, "hello")], 0, (out) => (out === "hello\n" ? undefined : "did not say hello"));
  const versions = [row("nodeagent --version", [AFTER, "--version"], 0, version)];
  const lints = [row("nodeagent staticpod lint (one file)", [AFTER, "staticpod", "lint", ONE_FILE], 0, oneFile)];
  if (before) {
    versions.push(row("before: nodeagent --version", [before, "--version"], 0, version));
    lints.push(row("before: nodeagent staticpod lint (one file)", [before, "staticpod", "lint", ONE_FILE], 0, oneFile));
  }
  const kubeconform = Bun.which("kubeconform");
  const peers = kubeconform ? [row("kubeconform -v", [kubeconform, "-v"]), row("kubeconform -strict (one file)", [kubeconform, "-strict", ONE_FILE])] : [];
  interleaved([floor, ...versions, ...lints, ...peers], RUNS);

  const floorMs = p50(floor);
  const toFloor = (r: Row) => `${(p50(r) / floorMs).toFixed(1)}× floor`;
  console.log(`Start-up, ${RUNS} interleaved rounds (wall clock from spawn to exit):`);
  table([floor, ...versions, ...lints, ...peers], (r) => (r === floor ? "" : toFloor(r)));
  console.log("");
  const v = p50(versions[0]!) / floorMs;
  const l = p50(lints[0]!) / floorMs;
  console.log(`target: --version ≤ 4× the floor — ${verdict(v <= 4)} (${v.toFixed(1)}×)`);
  console.log(`target: one-file lint ≤ 6× the floor — ${verdict(l <= 6)} (${l.toFixed(1)}×)`);
  if (before) {
    console.log(
      `before → after: --version ${ms(p50(versions[1]!))} → ${ms(p50(versions[0]!))} (${(p50(versions[1]!) / p50(versions[0]!)).toFixed(1)}× faster), ` +
        `one-file lint ${ms(p50(lints[1]!))} → ${ms(p50(lints[0]!))} (${(p50(lints[1]!) / p50(lints[0]!)).toFixed(1)}× faster)`,
    );
  }
  if (kubeconform) {
    console.log(`one-file lint vs kubeconform -strict: ${(p50(lints[0]!) / p50(peers[1]!)).toFixed(2)}×`);
  } else {
    console.log("kubeconform: not installed on this machine: its rows (kubeconform -v, -strict on the same file) are not measured");
  }

  if (JOBS_RUNS > 0) {
    const dir = join(tmp, "manifests");
    mkdirSync(dir);
    generateLintCorpus(dir, FILES);
    const checked = (out: string) => {
      const n = (JSON.parse(out) as { filesChecked: number }).filesChecked;
      return n === FILES ? undefined : `checked ${n} files, not ${FILES}`;
    };
    const jobs = (bin: string, label: string, n: number) =>
      row(
        `${label}staticpod lint --jobs ${n} (${FILES} files)`,
        [bin, "staticpod", "lint", dir, "-o", "json", "--node-name", "node1", "--jobs", String(n)],
        1,
        checked,
      );
    const rows = [jobs(AFTER, "", 1), jobs(AFTER, "", 2)];
    if (before) rows.push(jobs(before, "before: ", 1), jobs(before, "before: ", 2));
    // What two threads give at this moment, on this machine: a plain allocating JS loop split over
    // the calling thread and one Bun worker, against the whole loop on one thread.
    writeFileSync(join(tmp, "loop.ts"), LOOP_SOURCE);
    const loop = (n: number) => row(`plain JS loop, ${n} thread${n > 1 ? "s" : ""}`, [process.execPath, join(tmp, "loop.ts"), String(n)], 0);
    const loops = [loop(1), loop(2)];
    interleaved([...rows, ...loops], JOBS_RUNS);
    for (let i = 0; i < rows.length; i += 2) {
      if (rows[i]!.stdout !== rows[i + 1]!.stdout) throw new Error(`${rows[i + 1]!.name} printed other reports than ${rows[i]!.name}`);
    }
    console.log("");
    console.log(`--jobs on ${FILES} generated static pods, ${JOBS_RUNS} interleaved rounds (same JSON output for --jobs 1 and 2, checked):`);
    table(rows, (r) => {
      const i = rows.indexOf(r);
      return i % 2 === 1 ? `${(p50(rows[i - 1]!) / p50(r)).toFixed(2)}× faster than --jobs 1` : "";
    });
    table(loops, (r) => (r === loops[1] ? `${(p50(loops[0]!) / p50(r)).toFixed(2)}× faster than one thread: what 2 threads give now` : ""));
    const speedup = p50(rows[0]!) / p50(rows[1]!);
    const cores = quantile(rows[0]!.cpuMs, 0.5) / p50(rows[0]!);
    console.log("");
    // On a quiet machine ≈1.4: JavaScriptCore compiles the lint on a thread of its own, on the core a
    // second lint thread (which compiles everything again, src/lint/jobs.ts) would need.
    console.log(
      `--jobs 1 used ${cores.toFixed(2)} cores on average (cpu / wall): its JIT compiles on another thread, which a second lint thread competes with`,
    );
    console.log(
      `target: --jobs 2 ≥ 1.5× faster than --jobs 1 — ${verdict(speedup >= 1.5)} (${speedup.toFixed(2)}×; with ${FILES} files --jobs 2 runs ${threadsFor(FILES, 2)} thread${threadsFor(FILES, 2) > 1 ? "s" : ""}, one per ${FILES_PER_THREAD} files)`,
    );
    if (before) console.log(`before: --jobs 2 was ${(p50(rows[2]!) / p50(rows[3]!)).toFixed(2)}× --jobs 1's speed`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
