// bench/probes.ts (make bench-probes): exec probes under load, in one run on containerd 1.6, for the
// agent before (`--baseline PATH`, make bench-probes BASELINE=PATH; none: dist/nodeagent alone) and dist/nodeagent:
//  - N pods (50 and 100) each with an exec readiness probe every second: of the probes due in a
//    window, how many succeeded, failed, or were not counted (skipped for lack of an exec slot, a
//    timeout excused while the runtime was slow for everyone, or still running); how many pods were
//    Ready, at the least over the window and at its end (target, issue 14: at 50 pods ≥ 99 % of due
//    probes succeed and every pod is Ready);
//  - the agent's CPU with those probes as a ratio to the same pods without probes (the kubelet's exec
//    probes are a known CPU cost, k/k #82440), and containerd's beside it, since every exec probe is
//    an ExecSync it serves;
//  - for dist/nodeagent, probe latency as a ratio to a bare ExecSync of the same command on the same
//    container, alternately while the pods' probes run, and the agent's own mean from
//    prober_probe_duration_seconds over the same window;
//  - first, the runtime's own ceiling: bare ExecSyncs a second with 1 to 32 in flight, no agent
//    running (what the node's exec slots are sized by, and the most due probes a second can be);
//    and on the same containers, whose ceiling that is: our CRI client against @grpc/grpc-js (and
//    crictl when on PATH) at 1, 4 and 16 in flight, as ratios (bench/exec-clients.ts).
// Each configuration starts from a fresh agent on an empty runtime. Knobs: BENCH_PODS ("50,100"),
// BENCH_WINDOW_S (30), BENCH_SETTLE_S (10), BENCH_LATENCY_SAMPLES (100), BENCH_CEILING ("1,2,4,8,16,32" in flight, "" for none; also
// skips the client comparison), EXEC_CLIENTS_INFLIGHT ("1,4,16", "" for no client comparison).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PodList } from "kubernetes-types/core/v1";
import { Prober } from "../src/prober/prober";
import { RealClock } from "../src/util/clock";
import { TestAgent, manifest } from "../test/e2e/agent-harness";
import { BINARY, removeAllPods, startNode, type TestNode } from "../test/e2e/node";
import { runContainer, runSandbox } from "../test/e2e/pods";
import { eventually } from "../test/e2e/proc";
import { compareExecClients, formatExecClients, type ExecClientRow } from "./exec-clients";
import { baselineFromArgs } from "./baseline";
import { fmtMs, percentile, procUsage, usageOver } from "./usage";

const COUNTS = (process.env.BENCH_PODS ?? "50,100").split(",").map(Number);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 30);
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 10);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);
const BASELINE = baselineFromArgs();
const BEFORE = BASELINE.path;
console.log(BASELINE.note);
const CEILING = (process.env.BENCH_CEILING ?? "1,2,4,8,16,32").split(",").filter(Boolean).map(Number);
const CEILING_S = 5;
const STARTUP_S = Number(process.env.BENCH_STARTUP_S ?? 300);

const EXEC_PROBE = '      readinessProbe:\n        exec: { command: ["true"] }\n        periodSeconds: 1\n';

async function podList(agent: TestAgent): Promise<PodList> {
  return (await (await agent.fetch("/pods", { signal: AbortSignal.timeout(10_000) })).json()) as PodList;
}

/** Ready pods of the configuration (named `prefix-N`); undefined when the agent did not answer in time. */
async function readyCount(agent: TestAgent, prefix = "probed"): Promise<number | undefined> {
  const list = await podList(agent).catch(() => undefined);
  return list?.items.filter((p) => p.metadata?.name?.startsWith(`${prefix}-`) && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
    .length;
}

/** The agent's last word on probes it could not count (its once-a-minute warning), if any. */
function lastShortOfTime(agent: TestAgent): string | undefined {
  const lines = agent.proc.stderr.split("\n").filter((l) => l.includes("exec probes short of time"));
  const last = lines.at(-1);
  if (!last) return undefined;
  try {
    return String((JSON.parse(last) as { msg?: unknown }).msg ?? last);
  } catch {
    return last;
  }
}

/**
 * Sums of a metric's series by one label (or "" for all), from the agent's /metrics: retried for a
 * minute, since an agent on a swamped node can take longer than one read's 10 s to answer.
 */
async function metricSums(agent: TestAgent, metric: string, label?: string): Promise<Record<string, number>> {
  const text = await eventually(
    `${metric} from the agent`,
    async () => (await agent.fetch("/metrics", { signal: AbortSignal.timeout(10_000) })).text(),
    60_000,
    1000,
  );
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${metric}\\{([^}]*)\\} ([0-9.e+-]+)$`, "gm"))) {
    const key = label ? (new RegExp(`${label}="(\\w+)"`).exec(m[1]!)?.[1] ?? "") : "";
    out[key] = (out[key] ?? 0) + Number(m[2]);
  }
  return out;
}

/**
 * Writes the pods and waits until every one runs, or STARTUP_S: a node swamped by exec probes (the
 * agent before issue 14) may never get there, and how many ran is then part of the result. Not until
 * every one is Ready: how many are Ready is the result.
 */
async function startPods(agent: TestAgent, prefix: string, n: number, probe: boolean): Promise<number> {
  for (let i = 0; i < n; i++) agent.writeManifest(`${prefix}-${i}.yaml`, manifest(`${prefix}-${i}`, "exec sleep 3600", probe ? { container: EXEC_PROBE } : {}));
  let running = 0;
  const deadline = Date.now() + STARTUP_S * 1000;
  while (Date.now() < deadline) {
    const pods = await podList(agent).then(
      (l) => l.items.filter((p) => p.metadata?.name?.startsWith(`${prefix}-`)),
      () => [],
    );
    running = pods.filter((p) => p.status?.containerStatuses?.length && p.status.containerStatuses.every((c) => c.state?.running)).length;
    if (running === n) break;
    await Bun.sleep(500);
  }
  if (running < n) console.log(`  (${running} of ${n} ${prefix} pods running after ${STARTUP_S} s: going on with those)`);
  return running;
}

/**
 * Ends a configuration: the agent stops (its ExecSyncs in flight are cancelled with its connection)
 * and the pods go through the runtime directly. Through the agent they may never go: the agent
 * before issue 14 left so many abandoned ExecSyncs in containerd that removals stalled for minutes.
 */
async function teardown(agent: TestAgent, node: TestNode, prefix: string, n: number): Promise<void> {
  await agent.stop().catch(() => {});
  for (let i = 0; i < n; i++) agent.removeManifest(`${prefix}-${i}.yaml`);
  // Until the runtime is empty: under load a removal can time out, and a pod left over would count
  // against the next agent's capacity (110 pods).
  await eventually(
    "an empty runtime",
    async () => {
      await removeAllPods(node.client);
      return (await node.client.listPodSandbox()).length === 0;
    },
    600_000,
    1000,
  );
  agent.cleanup();
}

interface ProbedRun {
  binary: string;
  pods: number;
  /** Pods whose containers all ran before the window (all of them, unless the node was swamped). */
  running: number;
  due: number;
  successful: number;
  failed: number;
  notCounted: number;
  successRate: number;
  /** Seconds from every pod running to every pod Ready, if they all were within settle + window. */
  allReadyAfterS: number | undefined;
  readyMin: number;
  readyEnd: number;
  agentCpuPercent: number;
  agentRssMiB: number;
  containerdCpuPercent: number;
}

/** `n` probed pods: settle, then a window of probes, Ready sampled every second, CPU over it. */
async function probedRun(name: string, agent: TestAgent, containerdPid: number, n: number): Promise<ProbedRun> {
  const runningPods = await startPods(agent, "probed", n, true);
  const running = performance.now();
  let allReadyAfterS: number | undefined;
  const settleEnd = Date.now() + SETTLE_S * 1000;
  while (Date.now() < settleEnd) {
    if (allReadyAfterS === undefined && (await readyCount(agent)) === n) allReadyAfterS = (performance.now() - running) / 1000;
    await Bun.sleep(500);
  }
  const pids = [agent.proc.proc.pid, containerdPid];
  const u0 = pids.map(procUsage);
  const windowStart = performance.now();
  const before = await metricSums(agent, "prober_probe_total", "result");
  let readyMin = n;
  let readyEnd = 0;
  let samples = 0;
  for (let s = 0; s < WINDOW_S; s++) {
    await Bun.sleep(Math.max(0, windowStart + (s + 1) * 1000 - performance.now()));
    const ready = await readyCount(agent);
    if (ready === undefined) continue; // no answer within 10 s: this second is not sampled
    samples++;
    readyEnd = ready;
    readyMin = Math.min(readyMin, readyEnd);
    if (allReadyAfterS === undefined && readyEnd === n) allReadyAfterS = (performance.now() - running) / 1000;
  }
  if (samples === 0) readyMin = 0;
  const after = await metricSums(agent, "prober_probe_total", "result");
  const seconds = (performance.now() - windowStart) / 1000;
  const u1 = pids.map(procUsage);
  const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
  // One probe per pod per second of the window, as long as the window between the two readings.
  const due = Math.round(n * seconds);
  const successful = delta("successful");
  const failed = delta("failed") + delta("unknown");
  const cpu = (i: number) => ((u1[i]!.cpuTicks - u0[i]!.cpuTicks) / 100 / seconds) * 100;
  return {
    binary: name,
    pods: n,
    running: runningPods,
    due,
    successful,
    failed,
    notCounted: Math.max(0, due - successful - failed),
    successRate: successful / due,
    allReadyAfterS,
    readyMin,
    readyEnd,
    agentCpuPercent: cpu(0),
    agentRssMiB: u1[0]!.rssMiB,
    containerdCpuPercent: cpu(1),
  };
}

/** Bare ExecSync and the prober's exec attempt, alternately, on one probed container, under load. */
async function latency(node: TestNode, agent: TestAgent) {
  const target = (await podList(agent)).items[0]!.status!.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, "");
  const prober = new Prober(node.client, new RealClock());
  const bare: number[] = [];
  const probed: number[] = [];
  const before = await metricSums(agent, "prober_probe_duration_seconds_sum");
  const beforeCount = await metricSums(agent, "prober_probe_duration_seconds_count");
  let bareFailed = 0;
  let probeFailed = 0;
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    let t = performance.now();
    const r = await node.client.execSync(target, ["true"], 1).catch(() => undefined);
    bare.push(performance.now() - t);
    if (r?.exitCode !== 0) bareFailed++;
    t = performance.now();
    const a = await prober.attempt(() => ({ kind: "exec", containerId: target, command: ["true"] }), 1000);
    probed.push(performance.now() - t);
    if (a.result !== "success") probeFailed++;
  }
  const sum = ((await metricSums(agent, "prober_probe_duration_seconds_sum"))[""] ?? 0) - (before[""] ?? 0);
  const count = ((await metricSums(agent, "prober_probe_duration_seconds_count"))[""] ?? 0) - (beforeCount[""] ?? 0);
  return { bare, probed, bareFailed, probeFailed, agentMeanMs: (sum / Math.max(1, count)) * 1000, agentCount: count };
}

/** Bare ExecSyncs of `true` a second, and their p50, with `inFlight` at once over 16 containers. */
async function ceiling(node: TestNode): Promise<{ rows: { inFlight: number; perSecond: number; p50Ms: number; failed: number }[]; clients: ExecClientRow[] }> {
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) ids.push(await runContainer(node.client, await runSandbox(node, `ceiling-${i}`), "main", ["sleep", "3600"]));
  const out = [];
  for (const inFlight of CEILING) {
    const took: number[] = [];
    let failed = 0;
    const end = performance.now() + CEILING_S * 1000;
    await Promise.all(
      Array.from({ length: inFlight }, async (_, w) => {
        for (let k = w; performance.now() < end; k += inFlight) {
          const t = performance.now();
          const r = await node.client.execSync(ids[k % ids.length]!, ["true"], 1).catch(() => undefined);
          took.push(performance.now() - t);
          if (r?.exitCode !== 0) failed++;
        }
      }),
    );
    out.push({ inFlight, perSecond: took.length / CEILING_S, p50Ms: percentile(took, 50), failed });
  }
  const clients = await compareExecClients(node, ids);
  await removeAllPods(node.client);
  return { rows: out, clients };
}

const binaries: [string, string][] = [];
if (BEFORE) binaries.push(["before", BEFORE]);
binaries.push(["after", BINARY]);

const node = await startNode("1.6");
const results: ProbedRun[] = [];
const plain: Record<string, { cpuPercent: number; rssMiB: number; containerdCpuPercent: number }> = {};
let lat: Awaited<ReturnType<typeof latency>> | undefined;
let ceil: Awaited<ReturnType<typeof ceiling>>["rows"] = [];
let clients: ExecClientRow[] = [];
/** The agent running now, stopped if the benchmark fails midway. */
let current: TestAgent | undefined;
try {
  const containerdPid = Number(readFileSync(join(node.rootDir, "run", "containerd.pid"), "utf8"));
  const v = await node.client.version();
  const most = Math.max(...COUNTS);
  console.log(
    `nodeagent exec probe benchmark on ${v.runtimeName} ${v.runtimeVersion}: ${COUNTS.join(" and ")} pods, an exec readiness probe each every 1 s; ` +
      `${SETTLE_S} s to settle, then a ${WINDOW_S} s window\n`,
  );
  if (CEILING.length) {
    ({ rows: ceil, clients } = await ceiling(node));
    console.log(
      `  the runtime's ceiling, bare ExecSyncs (no agent): ${ceil.map((c) => `${c.inFlight} in flight ${c.perSecond.toFixed(0)}/s (p50 ${c.p50Ms.toFixed(0)} ms${c.failed ? `, ${c.failed} failed` : ""})`).join("; ")}`,
    );
    if (clients.length) console.log(formatExecClients(clients));
    console.log("");
  }
  for (const [name, binary] of binaries) {
    // The same pods without probes: what the probes' CPU is a ratio to.
    let agent = (current = new TestAgent(node, ["--pleg-mode", "generic"], binary));
    await agent.start();
    await startPods(agent, "plain", most, false);
    await Bun.sleep(SETTLE_S * 1000);
    const [a, c] = await usageOver([agent.proc.proc.pid, containerdPid], WINDOW_S);
    plain[name] = { cpuPercent: a!.cpuPercent, rssMiB: a!.rssMiB, containerdCpuPercent: c!.cpuPercent };
    await teardown(agent, node, "plain", most);
    for (const n of COUNTS) {
      agent = current = new TestAgent(node, ["--pleg-mode", "generic"], binary);
      await agent.start();
      const r = await probedRun(name, agent, containerdPid, n);
      results.push(r);
      console.log(
        `  ${name.padEnd(6)} ${String(n).padStart(3)} pods: ${r.successful}/${r.due} due probes succeeded (${(r.successRate * 100).toFixed(1)} %), ${r.failed} failed, ` +
          `${r.notCounted} not counted; Ready ≥ ${r.readyMin}/${n} over the window, ${r.readyEnd}/${n} at its end`,
      );
      const said = lastShortOfTime(agent);
      if (said) console.log(`         the agent said: ${said}`);
      if (name === "after" && n === most) lat = await latency(node, agent);
      await teardown(agent, node, "probed", n);
    }
  }
} finally {
  // An error midway (an agent that stopped answering) still leaves nothing behind: the agent, then
  // every pod, before containerd stops (node.stop gives up on removals that fail).
  if (current?.proc) await current.stop().catch(() => {});
  await eventually(
    "an empty runtime",
    async () => {
      await removeAllPods(node.client);
      return (await node.client.listPodSandbox()).length === 0;
    },
    600_000,
    1000,
  ).catch((e: unknown) => console.log(`cleanup: ${String(e)}`));
  current?.cleanup();
  await node.stop();
}

console.log(`\n  binary  pods   due  success  failed  not counted  success rate  all Ready after  Ready min/end  agent CPU (× no probes)  containerd CPU`);
for (const r of results) {
  const p = plain[r.binary]!;
  console.log(
    `  ${r.binary.padEnd(6)} ${String(r.pods).padStart(5)} ${String(r.due).padStart(5)} ${String(r.successful).padStart(8)} ${String(r.failed).padStart(7)} ${String(r.notCounted).padStart(12)}` +
      `  ${`${(r.successRate * 100).toFixed(1)} %`.padStart(12)}  ${(r.allReadyAfterS === undefined ? "never" : `${r.allReadyAfterS.toFixed(1)} s`).padStart(15)}` +
      `  ${`${r.readyMin}/${r.readyEnd}`.padStart(13)}  ${`${r.agentCpuPercent.toFixed(1)} % (${(r.agentCpuPercent / Math.max(p.cpuPercent, 0.01)).toFixed(1)}×)`.padStart(23)}` +
      `  ${`${r.containerdCpuPercent.toFixed(1)} %`.padStart(14)}`,
  );
}
for (const [name, p] of Object.entries(plain)) {
  console.log(
    `  ${name}: ${Math.max(...COUNTS)} pods without probes: agent ${p.cpuPercent.toFixed(2)} % of a core, RSS ${p.rssMiB.toFixed(1)} MiB; containerd ${p.containerdCpuPercent.toFixed(2)} %`,
  );
}
if (lat) {
  const bareMean = lat.bare.reduce((a, b) => a + b, 0) / lat.bare.length;
  console.log(
    `\n  latency under ${Math.max(...COUNTS)} probed pods (after): ${lat.bareFailed} of ${LATENCY_SAMPLES} bare ExecSyncs and ${lat.probeFailed} prober attempts failed`,
  );
  console.log(`  bare ExecSync                 p50 ${fmtMs(percentile(lat.bare, 50))}  p99 ${fmtMs(percentile(lat.bare, 99))}  mean ${fmtMs(bareMean)}`);
  console.log(
    `  prober exec attempt           p50 ${fmtMs(percentile(lat.probed, 50))}  p99 ${fmtMs(percentile(lat.probed, 99))}  (${(percentile(lat.probed, 50) / percentile(lat.bare, 50)).toFixed(2)}× bare at p50, ${(percentile(lat.probed, 99) / percentile(lat.bare, 99)).toFixed(2)}× at p99)`,
  );
  console.log(
    `  the agent's own probes, mean                        ${fmtMs(lat.agentMeanMs)}  (${(lat.agentMeanMs / bareMean).toFixed(2)}× the bare mean; ${lat.agentCount} probes)`,
  );
}
console.log(
  "\n" +
    JSON.stringify({
      window_s: WINDOW_S,
      settle_s: SETTLE_S,
      ceiling: ceil,
      clients,
      runs: results,
      plain,
      latencyMs: lat && {
        bareP50: percentile(lat.bare, 50),
        bareP99: percentile(lat.bare, 99),
        proberP50: percentile(lat.probed, 50),
        proberP99: percentile(lat.probed, 99),
        agentMean: lat.agentMeanMs,
        failures: { bare: lat.bareFailed, prober: lat.probeFailed },
      },
    }),
);
