// bench/hollow (make bench-hollow KUBE_BIN=… KUBEMARK=…): hollow nodes of `nodeagent hollow` against
// kubemark's, the same run, one control plane (issue 27).
//
// A private Kubernetes control plane on 127.0.0.1 (cluster.ts: etcd, kube-apiserver with its audit log,
// kube-controller-manager, kube-scheduler, all from KUBE_BIN), then, one contender after the other so
// neither's CPU is in the other's figures (contenders.ts):
//   1. M hollow nodes started; the time until all are Ready in the API;
//   2. BENCH_HOLLOW_SETTLE_S (30) to let start-up settle, then a rest window (measure.ts);
//   3. a Deployment of BENCH_HOLLOW_PODS_PER_NODE (30) × M pause pods on these nodes, scaled up until all
//      are Running, then down to none: CPU and requests over that window, pod start latency;
//   4. its processes stopped by PID, its Nodes deleted.
// The table gives each figure per node for both, and nodeagent / kubemark. kubemark is skipped, saying
// why, without KUBEMARK; nodeagent is skipped, saying why, when `dist/nodeagent hollow --help` fails.
//
// Knobs: --nodes M (BENCH_HOLLOW_NODES, 5), --nodeagent-nodes N (default M: nodeagent's node count, when
// it should differ; figures are per node either way), BENCH_HOLLOW_WINDOW_S (120), BENCH_HOLLOW_SETTLE_S
// (30), BENCH_HOLLOW_PODS_PER_NODE (30), BENCH_HOLLOW_POD_TIMEOUT_S (120 + pods / 5),
// BENCH_HOLLOW_START_GAP_MS (200 between kubemark processes), BENCH_HOLLOW_KUBELET_PORT (20000: kubemark
// node i serves on 20000 + i), BENCH_HOLLOW_API_PORT / _ETCD_PORT / _KCM_PORT / _SCHED_PORT
// (17443 / 17379 / 17267 / 17268), BENCH_KEEP_LOGS=1 keeps the run folder (logs, audit log).
//
// --scale [--nodes N (1000)] [--pods P (10 × N)]: the scale mode instead (scale.ts, make
// bench-hollow-scale): N nodeagent hollow nodes, no kubemark, then P pods per scheduler, kube-scheduler
// and `nodeagent schedule`.
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { benchPorts, HollowCluster, missingControlPlane } from "./cluster";
import { type Contender, Kubemark, NodeagentHollow, nodeagentHollowMissing } from "./contenders";
import { ensureNamespace, measurePods, measureRest, type PodFigures, type RestFigures } from "./measure";
import { runScale } from "./scale";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const num = (v: string | undefined, d: number) => (v === undefined || v === "" ? d : Number(v));

const M = num(arg("--nodes") ?? process.env.BENCH_HOLLOW_NODES, 5);
const N = num(arg("--nodeagent-nodes") ?? process.env.BENCH_HOLLOW_NODEAGENT_NODES, M);
const WINDOW_S = num(process.env.BENCH_HOLLOW_WINDOW_S, 120);
const SETTLE_S = num(process.env.BENCH_HOLLOW_SETTLE_S, 30);
const PODS_PER_NODE = num(process.env.BENCH_HOLLOW_PODS_PER_NODE, 30);
const START_GAP_MS = num(process.env.BENCH_HOLLOW_START_GAP_MS, 200);
const KUBELET_PORT = num(process.env.BENCH_HOLLOW_KUBELET_PORT, 20000);
const KEEP_LOGS = process.env.BENCH_KEEP_LOGS === "1";
const KUBE_BIN = process.env.KUBE_BIN ? resolve(process.env.KUBE_BIN) : undefined;
const KUBEMARK = process.env.KUBEMARK ? resolve(process.env.KUBEMARK) : undefined;
const NODEAGENT = resolve(import.meta.dir, "../../dist/nodeagent");
const podTimeoutMs = (nodes: number) => num(process.env.BENCH_HOLLOW_POD_TIMEOUT_S, 120 + (PODS_PER_NODE * nodes) / 5) * 1000;

interface Result {
  contender: Contender;
  readyS: number;
  rest?: RestFigures;
  pods?: PodFigures;
  error?: string;
}

const cpMissing = missingControlPlane(KUBE_BIN);
if (cpMissing) {
  console.log(`bench-hollow: skipped: ${cpMissing}`);
  process.exit(0);
}
if (process.argv.includes("--scale")) {
  const missing = nodeagentHollowMissing(NODEAGENT);
  if (missing) {
    console.log(`bench-hollow-scale: skipped: ${missing}`);
    process.exit(0);
  }
  const nodes = num(arg("--nodes") ?? process.env.HOLLOW_SCALE_NODES, 1000);
  const pods = num(arg("--pods") ?? process.env.HOLLOW_SCALE_PODS, 10 * nodes);
  await runScale({ kubeBin: KUBE_BIN!, nodeagent: NODEAGENT, nodes, pods, keepLogs: KEEP_LOGS });
  process.exit(0);
}
const kubemarkMissing = !KUBEMARK ? "KUBEMARK is not set (cmd/kubemark of the same tree as KUBE_BIN)" : !existsSync(KUBEMARK) ? `no ${KUBEMARK}` : undefined;
const nodeagentMissing = nodeagentHollowMissing(NODEAGENT);
if (kubemarkMissing && nodeagentMissing) {
  console.log(`bench-hollow: nothing to measure: kubemark: ${kubemarkMissing}; nodeagent: ${nodeagentMissing}`);
  process.exit(0);
}

const cluster = await HollowCluster.start(KUBE_BIN!, benchPorts());
const contenders: Contender[] = [];
if (!kubemarkMissing) contenders.push(new Kubemark(KUBEMARK!, cluster.adminKubeconfig, cluster.rundir, M, KUBELET_PORT, START_GAP_MS));
if (!nodeagentMissing) contenders.push(new NodeagentHollow(NODEAGENT, cluster.adminKubeconfig, cluster.rundir, N));
const stopAll = () => {
  for (const c of contenders) c.kill();
  cluster.stop(KEEP_LOGS);
  process.exit(130);
};
process.on("SIGINT", stopAll);
process.on("SIGTERM", stopAll);

const version = await cluster.call<{ gitVersion: string }>("GET", "/version");
console.log(
  `bench-hollow: Kubernetes ${version.gitVersion} control plane on 127.0.0.1 (etcd, kube-apiserver, kube-controller-manager, kube-scheduler), ` +
    `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)} at start`,
);
console.log(`  kubemark:  ${kubemarkMissing ? `SKIPPED: ${kubemarkMissing}` : `${M} processes, node 0 is: ${(contenders[0] as Kubemark).argv(0).join(" ")}`}`);
console.log(
  `  nodeagent: ${nodeagentMissing ? `SKIPPED: ${nodeagentMissing}` : `1 process for ${N} nodes: ${(contenders.at(-1) as NodeagentHollow).argv().join(" ")}`}`,
);
console.log(
  `  rest window ${WINDOW_S} s after ${SETTLE_S} s settling; then ${PODS_PER_NODE} pods per node (a Deployment, bound by kube-scheduler) up and down; ` +
    `API requests from the audit log (user admin, user agent not the bench's)\n`,
);

const results: Result[] = [];
try {
  await ensureNamespace(cluster);
  for (const c of contenders) results.push(await runContender(c));
} finally {
  for (const c of contenders) await c.stop();
  cluster.stop(KEEP_LOGS);
}
printTable(results);
if (KEEP_LOGS) console.log(`\nlogs and the audit log in ${cluster.rundir}`);

async function runContender(c: Contender): Promise<Result> {
  const say = (s: string) => console.log(`  [${c.name}] ${s}`);
  say(`starting ${c.nodes} hollow nodes`);
  const result: Result = { contender: c, readyS: NaN };
  try {
    await c.start();
    result.readyS = await cluster.waitReady(c.selector, c.nodes, 300_000 + c.nodes * 500, () => c.alive());
    say(`all ${c.nodes} Ready after ${result.readyS.toFixed(1)} s; settling ${SETTLE_S} s, then ${WINDOW_S} s at rest`);
    await Bun.sleep(SETTLE_S * 1000);
    result.rest = await measureRest(cluster, c, WINDOW_S);
    say(`at rest: ${result.rest.count.requests} requests (${[...result.rest.count.userAgents].map(([ua, n]) => `${ua} ${n}`).join(", ")})`);
    say(`${PODS_PER_NODE * c.nodes} pods up and down`);
    result.pods = await measurePods(cluster, c, PODS_PER_NODE, podTimeoutMs(c.nodes));
    if (result.pods.error) say(`pods: ${result.pods.error}`);
  } catch (e) {
    result.error = (e as Error).message;
    say(`FAILED: ${result.error}`);
  } finally {
    await c.stop();
    await cluster.deleteNodes(c.selector).catch(() => undefined);
  }
  return result;
}

function printTable(rs: Result[]): void {
  const km = rs.find((r) => r.contender.name === "kubemark");
  const na = rs.find((r) => r.contender.name === "nodeagent");
  const rows: Array<[string, (r: Result) => number | undefined, number]> = [
    ["hollow nodes", (r) => r.contender.nodes, 0],
    ["all Ready after (s)", (r) => r.readyS, 1],
    ["resident memory per node (MiB)", (r) => r.rest?.rssMiB, 2],
    ["CPU per node at rest (% of a core)", (r) => r.rest?.cpuPercent, 3],
    ["API requests per node per minute, at rest", (r) => r.rest?.requestsPerMinute, 2],
    ["kube-apiserver CPU at rest (% of a core)", (r) => r.rest?.apiserverCpuPercent, 1],
    [`CPU per node, ${PODS_PER_NODE} pods/node up+down (%)`, (r) => r.pods?.cpuPercent, 3],
    ["API requests per node per minute, with pods", (r) => r.pods?.requestsPerMinute, 2],
    ["API requests per pod started and stopped", (r) => (r.pods ? r.pods.count.requests / r.pods.pods : undefined), 2],
    ["kube-apiserver CPU with pods (% of a core)", (r) => r.pods?.apiserverCpuPercent, 1],
    ["pods Running (of the Deployment's)", (r) => r.pods?.running, 0],
    ["pod start latency p50 (ms)", (r) => r.pods?.p50Ms, 0],
    ["pod start latency p99 (ms)", (r) => r.pods?.p99Ms, 0],
    ["requests refused (403)", (r) => (r.rest ? r.rest.count.refused + (r.pods?.count.refused ?? 0) : undefined), 0],
  ];
  const cell = (r: Result | undefined, f: (r: Result) => number | undefined, d: number) => {
    const v = r && f(r);
    return v === undefined || Number.isNaN(v) ? "–" : v.toFixed(d);
  };
  console.log(`\n${"per hollow node".padEnd(46)}${"kubemark".padStart(12)}${"nodeagent".padStart(12)}${"nodeagent/kubemark".padStart(20)}`);
  for (const [label, f, d] of rows) {
    const a = km && f(km);
    const b = na && f(na);
    const ratio = a && b && !Number.isNaN(a) && !Number.isNaN(b) && label !== "hollow nodes" ? `${(b / a).toFixed(3)}×` : "–";
    console.log(`${label.padEnd(46)}${cell(km, f, d).padStart(12)}${cell(na, f, d).padStart(12)}${ratio.padStart(20)}`);
  }
  for (const r of rs) if (r.error || r.pods?.error) console.log(`  ${r.contender.name}: ${r.error ?? r.pods?.error}`);
  console.log(
    "\n" +
      JSON.stringify(
        rs.map((r) => ({ contender: r.contender.name, nodes: r.contender.nodes, readyS: r.readyS, rest: strip(r.rest), pods: strip(r.pods), error: r.error })),
      ),
  );
}

function strip<T extends { count: { userAgents: Map<string, number> } }>(w: T | undefined) {
  return w && { ...w, count: { ...w.count, userAgents: Object.fromEntries(w.count.userAgents) } };
}
