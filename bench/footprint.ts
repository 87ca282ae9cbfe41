// bench/footprint.ts (make bench-footprint): the agent's idle footprint and its restart after a crash,
// the binary before issue 14 against this build, in one run on one containerd 1.6 test node.
//  1. RSS and CPU at rest with 0 pods: an agent of each binary on an empty manifest directory, side
//     by side, measured over the same FOOTPRINT_CPU_S seconds.
//  2. RSS with half and all of FOOTPRINT_PODS idle pods (busybox `sleep 3600`) that each binary's
//     agent started itself, one binary after the other.
//  3. kill -9 → GET /healthz 200 with all the pods running: the binaries take turns killing and
//     restarting one agent on the same root directory and manifests, so each adopts what the other
//     left. Each restart is timed from the kill until /healthz says ok, and until GET /pods reports
//     every pod running with the very containers it had before: adoption starts nothing twice (the
//     runtime's containers are counted too, and a restart that started one is an error).
//  4. CPU at rest with all the pods, on those adopted pods: the binaries take turns, each measured
//     over FOOTPRINT_CPU_S seconds after FOOTPRINT_SETTLE_S, twice; the mean is reported.
// Targets (issue 14): RSS ≤ 50 MiB at 0 pods and ≤ 80 MiB at 100; idle CPU no worse than before;
// healthz ok within 1 s of the kill with 100 pods adopted. Figures from a shared 2-core machine are
// indicative: the ratios come from the same run.
//
// In the RSS phases every agent starts with its binary's pages dropped from the page cache (`dd
// iflag=nocache`, that file only), as after a reboot: the kernel maps a faulting page's neighbours
// too when the cache holds them (fault-around, whole large folios), so the same binary read up to
// 5 MiB more RSS at 0 pods just after `make build` wrote it than read back from disk, and binaries
// compared in one run did not start even.
//
// Knobs: FOOTPRINT_PODS (100), FOOTPRINT_CPU_S (20), FOOTPRINT_RESTARTS (5 per binary),
// FOOTPRINT_MAIN (a
// third binary between the two, e.g. a build of main before a change; none by default), FOOTPRINT_AFTER
// (dist/nodeagent), FOOTPRINT_SETTLE_S (5: the rest before RSS is read), FOOTPRINT_PHASES ("rss,restart").
// The binary before: `--baseline PATH` (make bench-footprint BASELINE=PATH); none, this build alone.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { AGENT_CGROUP, hasAuthenticatedApi, manifest, NODE_NAME } from "../test/e2e/agent-harness";
import { BINARY, removeAllPods, removeCgroups, startNode, type TestNode } from "../test/e2e/node";
import { baselineFromArgs } from "./baseline";
import { percentile, procUsage, usageOver } from "./usage";

const PODS = Number(process.env.FOOTPRINT_PODS ?? 100);
const CPU_S = Number(process.env.FOOTPRINT_CPU_S ?? 20);
const RESTARTS = Number(process.env.FOOTPRINT_RESTARTS ?? 5);
const SETTLE_S = Number(process.env.FOOTPRINT_SETTLE_S ?? 5);
const BASELINE = baselineFromArgs();
const BEFORE = BASELINE.path;
console.log(BASELINE.note);
const AFTER = process.env.FOOTPRINT_AFTER ?? BINARY;
const MAIN = process.env.FOOTPRINT_MAIN ?? "";
const PHASES = new Set((process.env.FOOTPRINT_PHASES ?? "rss,restart").split(","));

interface Binary {
  label: string;
  path: string;
}

/** A free TCP port on loopback: a restarted agent must come back on the port the benchmark polls. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Drops the file's pages from the page cache (GNU dd: "drop cache for the whole file"). */
function dropFromPageCache(path: string): void {
  const r = Bun.spawnSync(["dd", `if=${path}`, "iflag=nocache", "count=0", "status=none"], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`dd iflag=nocache ${path}: ${r.stderr.toString().trim()}`);
}

/** One agent process on a fixed directory and port, as TestAgent runs it but for any binary. */
class BenchAgent {
  proc: ReturnType<typeof Bun.spawn> | undefined;
  stderr = "";
  constructor(
    readonly bin: Binary,
    readonly dir: string,
    readonly port: number,
    readonly node: TestNode,
  ) {
    mkdirSync(join(dir, "manifests"), { recursive: true });
  }
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** A build with the authenticated API (issue 16) gets plain HTTP and a token; older ones need neither. */
  private token = "";
  private apiFlags(): string[] {
    if (!hasAuthenticatedApi(this.bin.path)) return [];
    this.token = "footprint-bench-token";
    const file = join(this.dir, "api-token");
    writeFileSync(file, `${this.token}\n`, { mode: 0o600 });
    return ["--insecure-http", "--push-token-file", file];
  }
  private headers(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }
  /** Starts the agent; `cold`: from a binary not in the page cache (the RSS phases; see the top). */
  start(cold = false): void {
    this.stderr = "";
    if (cold) dropFromPageCache(this.bin.path);
    const proc = Bun.spawn(
      [
        this.bin.path,
        "agent",
        "--runtime-endpoint",
        this.node.endpoint,
        "--root-dir",
        join(this.dir, "root"),
        "--pod-manifest-path",
        join(this.dir, "manifests"),
        "--pod-logs-dir",
        join(this.dir, "logs"),
        "--cgroup-root",
        AGENT_CGROUP,
        "--hostname-override",
        NODE_NAME,
        "--port",
        String(this.port),
        "--file-check-frequency",
        "2s",
        "--log-format",
        "json",
        "--pleg-mode",
        "auto",
        ...this.apiFlags(),
      ],
      { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
    );
    this.proc = proc;
    void (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) this.stderr += dec.decode(chunk, { stream: true });
    })();
  }
  get pid(): number {
    return this.proc!.pid;
  }
  async kill(signal: "SIGKILL" | "SIGINT"): Promise<void> {
    this.proc?.kill(signal);
    await this.proc?.exited;
  }
  write(name: string): void {
    // Written beside, then renamed: the agent never reads half a manifest.
    const tmp = join(this.dir, "manifests", `.${name}.tmp`);
    writeFileSync(tmp, manifest(name, "sleep 3600"));
    renameSync(tmp, join(this.dir, "manifests", `${name}.yaml`));
  }
  async healthy(): Promise<boolean> {
    try {
      return (await fetch(`${this.url}/healthz`, { headers: this.headers() })).status === 200;
    } catch {
      return false;
    }
  }
  async pods(): Promise<Pod[]> {
    return ((await (await fetch(`${this.url}/pods`, { headers: this.headers() })).json()) as PodList).items;
  }
}

/** Container IDs of every pod whose containers all run, by pod name. */
function runningContainers(pods: Pod[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of pods) {
    const cs = p.status?.containerStatuses ?? [];
    if (p.status?.phase === "Running" && cs.length > 0 && cs.every((c) => c.state?.running)) out.set(p.metadata!.name!, cs.map((c) => c.containerID).join(","));
  }
  return out;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 10): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch {
      /* not yet */
    }
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** Phase 1: an agent of each binary on an empty directory, side by side: RSS, and CPU over the same window. */
async function atRest(node: TestNode, bins: Binary[]): Promise<Record<string, { rssMiB: number; cpuPercent: number }>> {
  const agents = await Promise.all(bins.map(async (b) => new BenchAgent(b, join(node.rootDir, `rest-${b.label}`), await freePort(), node)));
  for (const a of agents) a.start(true);
  try {
    for (const a of agents) await until(`${a.bin.label} healthy`, () => a.healthy(), 30_000, 50);
    await Bun.sleep(SETTLE_S * 1000);
    const usage = await usageOver(
      agents.map((a) => a.pid),
      CPU_S,
    );
    return Object.fromEntries(agents.map((a, i) => [a.bin.label, usage[i]!]));
  } finally {
    for (const a of agents) await a.kill("SIGINT");
  }
}

/** Phase 2 for one binary: a fresh agent starts PODS/2, then PODS pods; its RSS once each set runs. */
async function withPods(node: TestNode, bin: Binary): Promise<Record<number, number>> {
  const agent = new BenchAgent(bin, join(node.rootDir, `fp-${bin.label}`), await freePort(), node);
  agent.start(true);
  try {
    await until(`${bin.label} healthy`, () => agent.healthy(), 30_000, 50);
    const rss: Record<number, number> = {};
    let made = 0;
    for (const target of [Math.floor(PODS / 2), PODS]) {
      for (; made < target; made++) agent.write(`idle-${made}`);
      await until(`${target} pods running under ${bin.label}`, async () => runningContainers(await agent.pods()).size >= target, 300_000, 500);
      await Bun.sleep(SETTLE_S * 1000);
      rss[target] = procUsage(agent.pid).rssMiB;
    }
    return rss;
  } finally {
    await agent.kill("SIGINT");
  }
}

interface Restart {
  healthyMs: number;
  adoptedMs: number;
}

/**
 * Phase 2: one kill -9 and restart of `bin` on the shared directory: ms from the kill to /healthz
 * 200, and to every pod reported running with the containers it had before the kill.
 */
async function restart(agent: BenchAgent, before: Map<string, string>, containers: number): Promise<Restart> {
  const t0 = performance.now();
  await agent.kill("SIGKILL");
  agent.start();
  await until(`${agent.bin.label} healthy after kill -9`, () => agent.healthy(), 30_000, 5);
  const healthyMs = performance.now() - t0;
  await until(
    `${agent.bin.label} reporting every pod adopted`,
    async () => {
      const now = runningContainers(await agent.pods());
      return now.size === before.size && [...before].every(([k, v]) => now.get(k) === v);
    },
    60_000,
    5,
  );
  const adoptedMs = performance.now() - t0;
  const after = (await node.client.listContainers()).length;
  if (after !== containers)
    throw new Error(`${agent.bin.label}: the runtime has ${after} containers after the restart, ${containers} before: adoption started something`);
  return { healthyMs, adoptedMs };
}

const bins: Binary[] = [
  ...(BEFORE ? [{ label: "before", path: BEFORE }] : []),
  ...(MAIN ? [{ label: "main", path: MAIN }] : []),
  { label: "after", path: AFTER },
];
for (const b of bins) if (!existsSync(b.path)) throw new Error(`${b.label} binary ${b.path} not found${b.label === "after" ? ": run make build" : ""}`);

const node = await startNode("1.6");
try {
  const v = await node.client.version();
  console.log(`nodeagent footprint on ${v.runtimeName} ${v.runtimeVersion}: ${PODS} idle pods, CPU over ${CPU_S} s, ${RESTARTS} restarts per binary`);
  console.log(bins.map((b) => `  ${b.label}: ${b.path}`).join("\n") + "\n");
  const half = Math.floor(PODS / 2);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

  const rest: Record<string, { rssMiB: number; cpuPercent: number }> = {};
  const rss: Record<string, Record<number, number>> = {};
  if (PHASES.has("rss")) {
    Object.assign(rest, await atRest(node, bins));
    for (const b of bins) {
      rss[b.label] = { 0: rest[b.label]!.rssMiB, ...(await withPods(node, b)) };
      await removeAllPods(node.client);
      rmSync(join(node.rootDir, `fp-${b.label}`), { recursive: true, force: true });
    }
    for (const b of bins) {
      const r = rss[b.label]!;
      console.log(
        `  ${b.label.padEnd(7)} RSS ${[0, half, PODS].map((n) => `${n} pods ${r[n]!.toFixed(1)} MiB`).join(", ")}; CPU at 0 pods ${rest[b.label]!.cpuPercent.toFixed(2)}% of a core`,
      );
    }
    if (BEFORE) {
      const [a, b] = [rss.after!, rss.before!];
      console.log(
        `  after / before: RSS ${[0, half, PODS].map((n) => `${ratio(a[n]!, b[n]!)} at ${n}`).join(", ")}; CPU at 0 pods ${ratio(rest.after!.cpuPercent, rest.before!.cpuPercent)}`,
      );
    }
    if (MAIN) {
      const [a, m] = [rss.after!, rss.main!];
      console.log(
        `  after / main: RSS ${[0, half, PODS].map((n) => `${ratio(a[n]!, m[n]!)} at ${n}`).join(", ")}; CPU at 0 pods ${ratio(rest.after!.cpuPercent, rest.main!.cpuPercent)}`,
      );
    }
    console.log(
      `  targets: RSS ≤ 50 MiB at 0 pods ${rss.after![0]! <= 50 ? "met" : "NOT met"}, ≤ 80 MiB at ${PODS} ${rss.after![PODS]! <= 80 ? "met" : "NOT met"}`,
    );
  }

  const times: Record<string, Restart[]> = Object.fromEntries(bins.map((b) => [b.label, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(bins.map((b) => [b.label, []]));
  if (PHASES.has("restart")) {
    // The last binary starts the pods; then the binaries take turns killing and restarting it.
    const shared = new BenchAgent(bins.at(-1)!, join(node.rootDir, "restart"), await freePort(), node);
    shared.start();
    for (let i = 0; i < PODS; i++) shared.write(`idle-${i}`);
    const pods = await until(
      `${PODS} pods running`,
      async () => {
        const m = runningContainers(await shared.pods());
        return m.size >= PODS && m;
      },
      300_000,
      500,
    );
    const containers = (await node.client.listContainers()).length;
    let current = shared;
    const turn = async (b: Binary) => {
      const next = new BenchAgent(b, shared.dir, shared.port, node);
      next.proc = current.proc;
      current = next;
      return restart(next, pods, containers);
    };
    for (let i = 0; i < RESTARTS; i++) {
      for (const b of bins) {
        times[b.label]!.push(await turn(b));
        await Bun.sleep(1000);
      }
    }
    // CPU at rest on the adopted pods, the binaries taking turns.
    for (let round = 0; round < 2; round++) {
      for (const b of bins) {
        await turn(b);
        await Bun.sleep(SETTLE_S * 1000);
        cpu[b.label]!.push((await usageOver([current.pid], CPU_S))[0]!.cpuPercent);
      }
    }
    await current.kill("SIGINT");
    if (process.env.FOOTPRINT_LOG) console.log(current.stderr);
    const median = (l: string, k: keyof Restart) =>
      percentile(
        times[l]!.map((x) => x[k]),
        50,
      );
    console.log(`\n  kill -9 → /healthz ok with ${PODS} pods adopted (median of ${RESTARTS}; then every pod reported running with its containers):`);
    for (const b of bins) {
      console.log(
        `  ${b.label.padEnd(7)} healthz ${median(b.label, "healthyMs").toFixed(0)} ms, all pods ${median(b.label, "adoptedMs").toFixed(0)} ms  (healthz each: ${times[b.label]!.map((x) => x.healthyMs.toFixed(0)).join(", ")})`,
      );
    }
    console.log(`\n  CPU at rest with the ${PODS} adopted pods (${CPU_S} s, two turns each):`);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    for (const b of bins)
      console.log(`  ${b.label.padEnd(7)} ${mean(cpu[b.label]!).toFixed(2)}% of a core  (each: ${cpu[b.label]!.map((c) => c.toFixed(2)).join(", ")})`);
    if (BEFORE) {
      console.log(
        `  after / before: healthz ${ratio(median("after", "healthyMs"), median("before", "healthyMs"))}, all pods ${ratio(median("after", "adoptedMs"), median("before", "adoptedMs"))}; CPU at ${PODS} pods ${ratio(mean(cpu.after!), mean(cpu.before!))}`,
      );
    }
    console.log(`  target: healthz ≤ 1 s after kill -9 ${median("after", "healthyMs") <= 1000 ? "met" : "NOT met"}`);
  }
  console.log("\n" + JSON.stringify({ pods: PODS, rest, rss, restarts: times, cpu }));
} finally {
  await removeAllPods(node.client).catch(() => {});
  await node.stop();
  removeCgroups(AGENT_CGROUP);
}
