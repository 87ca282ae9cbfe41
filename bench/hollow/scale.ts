// The scale mode of bench/hollow (make bench-hollow-scale KUBE_BIN=… [HOLLOW_SCALE_NODES=1000
// HOLLOW_SCALE_PODS=10000]): issue 27's goal at full size, nodeagent alone, on a fresh control plane.
//   1. `nodeagent hollow` with N nodes in one process; the time until all N are Ready in the API, and
//      the CPU of the hollow process (its tree: proc.ts), kube-apiserver, etcd and kube-controller-manager
//      over that wave;
//   2. a rest window (BENCH_HOLLOW_SCALE_REST_S, 60): the hollow process's resident memory (total and per
//      node) and everyone's CPU — the API server, not the agent, should be the busiest;
//   3. per scheduler, kube-scheduler first, then `nodeagent schedule --kubeconfig` (scale-pods.ts): a
//      Deployment of P pods (cpu 1m, memory 1Mi) made while no scheduler runs, then the scheduler
//      started: all bound, throughput, all Running, deleted; the two throughputs side by side.
// kube-scheduler is the one control-plane.sh started, stopped by its PID and run again with the same
// flags: as shipped, its client limited to 50 requests/s (burst 100). BENCH_HOLLOW_SCALE_SCHED_QPS=Q
// adds --kube-api-qps/--kube-api-burst Q (`nodeagent schedule` has no client limit); on a 2-core machine
// with a thousand hollow nodes, Q=1000 overloaded the API server (429s, TLS handshake timeouts on its
// event writes: 831 pods bound in its first 2 minutes). `nodeagent schedule` runs with kube-scheduler's
// identity (sched.kubeconfig). kube-controller-manager runs with KCM_QPS/KCM_BURST BENCH_HOLLOW_SCALE_KCM_QPS
// (100, as Kubernetes' scalability presets) so the ReplicaSet fills in time. No audit log here: at
// this size writing it would be a large part of the API server's CPU.
// Knobs: BENCH_HOLLOW_SCALE_TIMEOUT_S (900, each wait), BENCH_KEEP_LOGS=1, and the ports of main.ts.
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { benchPorts, HollowCluster } from "./cluster";
import { NodeagentHollow, stopProcess } from "./contenders";
import { ensureNamespace } from "./measure";
import { treeRssMiB, treeTicks } from "./proc";
import { type SchedulerFigures, type SchedulerUnderTest, schedulerPhase } from "./scale-pods";
import { USER_HZ } from "../usage";

export interface ScaleOptions {
  kubeBin: string;
  nodeagent: string;
  nodes: number;
  pods: number;
  keepLogs: boolean;
}

const env = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);

class Spawned implements SchedulerUnderTest {
  private proc?: Subprocess;
  constructor(
    readonly name: string,
    readonly argv: string[],
    private readonly logPath: string,
    private readonly cluster: HollowCluster,
    private readonly adopt: boolean,
  ) {}
  start(): number {
    const log = Bun.file(this.logPath);
    this.proc = Bun.spawn(this.argv, { stdin: "ignore", stdout: log, stderr: log });
    if (this.adopt) this.cluster.adoptScheduler(this.proc.pid);
    return this.proc.pid;
  }
  async stop(): Promise<void> {
    if (this.proc) await stopProcess(this.proc);
    if (this.adopt) this.cluster.adoptScheduler(undefined);
  }
}

/** CPU (% of one core) of named process trees over a window. */
function cpuMeter(procs: Record<string, () => number>) {
  const t0 = performance.now();
  const a = Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, treeTicks([pid()])]));
  return () => {
    const s = (performance.now() - t0) / 1000;
    return Object.fromEntries(Object.entries(procs).map(([k, pid]) => [k, ((treeTicks([pid()]) - a[k]!) / USER_HZ / s) * 100]));
  };
}

export async function runScale(o: ScaleOptions): Promise<void> {
  const restS = env("BENCH_HOLLOW_SCALE_REST_S", 60);
  const timeoutMs = env("BENCH_HOLLOW_SCALE_TIMEOUT_S", 900) * 1000;
  const schedQps = process.env.BENCH_HOLLOW_SCALE_SCHED_QPS;
  const kcmQps = env("BENCH_HOLLOW_SCALE_KCM_QPS", 100);
  const cluster = await HollowCluster.start(o.kubeBin, benchPorts(), { audit: false, env: { KCM_QPS: String(kcmQps), KCM_BURST: String(kcmQps) } });
  const hollow = new NodeagentHollow(o.nodeagent, cluster.adminKubeconfig, cluster.rundir, o.nodes);
  const stopAll = () => {
    hollow.kill();
    cluster.stop(o.keepLogs);
    process.exit(130);
  };
  process.on("SIGINT", stopAll);
  process.on("SIGTERM", stopAll);
  const say = (s: string) => console.log(`  [${new Date().toISOString().slice(11, 19)}] ${s}`);
  const procs: Record<string, () => number> = {
    "nodeagent hollow": () => hollow.pids[0] ?? 0,
    "kube-apiserver": () => cluster.pid("apiserver"),
    etcd: () => cluster.pid("etcd"),
    "kube-controller-manager": () => cluster.pid("kcm"),
  };
  const figures: SchedulerFigures[] = [];
  let readyS = NaN;
  let rssMiB = NaN;
  let readyCpu: Record<string, number> = {};
  let restCpu: Record<string, number> = {};
  let failure: string | undefined;
  try {
    const version = await cluster.call<{ gitVersion: string }>("GET", "/version");
    const kubeSchedulerArgv = await cluster.stopScheduler();
    console.log(
      `bench-hollow-scale: Kubernetes ${version.gitVersion} control plane on 127.0.0.1, ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} at start; ${o.nodes} hollow nodes, ${o.pods} pods per scheduler`,
    );
    console.log(`  hollow: ${hollow.argv().join(" ")}`);
    await ensureNamespace(cluster);
    const ready = cpuMeter(procs);
    await hollow.start();
    readyS = await cluster.waitReady(hollow.selector, o.nodes, timeoutMs, () => hollow.alive());
    readyCpu = ready();
    say(`all ${o.nodes} Ready after ${readyS.toFixed(1)} s; ${restS} s at rest`);
    const rest = cpuMeter(procs);
    await Bun.sleep(restS * 1000);
    restCpu = rest();
    rssMiB = treeRssMiB(hollow.pids);
    say(`at rest: hollow RSS ${rssMiB.toFixed(0)} MiB; CPU ${fmtCpu(restCpu)}`);
    const schedulers = [
      new Spawned(
        "kube-scheduler",
        [...kubeSchedulerArgv, ...(schedQps ? [`--kube-api-qps=${schedQps}`, `--kube-api-burst=${schedQps}`] : [])],
        join(cluster.rundir, "kube-scheduler-bench.log"),
        cluster,
        true,
      ),
      new Spawned(
        "nodeagent schedule",
        [o.nodeagent, "schedule", "--kubeconfig", join(cluster.rundir, "sched.kubeconfig")],
        join(cluster.rundir, "nodeagent-schedule.log"),
        cluster,
        true,
      ),
    ];
    for (const s of schedulers) {
      say(`${s.name}: ${s.argv.join(" ")}`);
      figures.push(
        await schedulerPhase(cluster, s, {
          pods: o.pods,
          nodeLabel: hollow.label,
          timeoutMs,
          processes: procs,
          say: (m) => say(`[${s.name}] ${m}`),
        }),
      );
      if (!hollow.alive()) throw new Error("the nodeagent hollow process exited");
    }
  } catch (e) {
    failure = (e as Error).message;
    say(`FAILED: ${failure}`);
  } finally {
    await hollow.stop();
    cluster.stop(o.keepLogs);
  }
  printScale(o, readyS, rssMiB, readyCpu, restCpu, figures, failure);
  if (o.keepLogs) console.log(`\nlogs in ${cluster.rundir}`);
}

const fmtCpu = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${v.toFixed(1)}%`)
    .join(", ");

function printScale(
  o: ScaleOptions,
  readyS: number,
  rssMiB: number,
  readyCpu: Record<string, number>,
  restCpu: Record<string, number>,
  fs: SchedulerFigures[],
  failure: string | undefined,
): void {
  const n = (v: number | undefined, d: number) => (v === undefined || Number.isNaN(v) ? "–" : v.toFixed(d));
  const row = (label: string, ...cells: string[]) => console.log(label.padEnd(62) + cells.map((c) => c.padStart(20)).join(""));
  console.log("");
  row(`fleet: nodeagent hollow, ${o.nodes} nodes, 1 process`, "value");
  row("all Ready after (s)", n(readyS, 1));
  row("resident memory of the hollow process (MiB)", n(rssMiB, 0));
  row("resident memory per hollow node (MiB)", n(rssMiB / o.nodes, 3));
  for (const [k, v] of Object.entries(readyCpu)) row(`CPU while registering, ${k} (% of a core)`, n(v, 1));
  for (const [k, v] of Object.entries(restCpu)) row(`CPU at rest, ${k} (% of a core)`, n(v, 1));
  const busiest = Object.entries(restCpu).sort((a, b) => b[1] - a[1])[0];
  if (busiest) row("busiest process at rest", busiest[0]);
  if (fs.length) {
    const ks = fs.find((f) => f.scheduler === "kube-scheduler");
    const na = fs.find((f) => f.scheduler === "nodeagent schedule");
    console.log("");
    row(`schedulers: ${o.pods} pods over ${o.nodes} nodes`, "kube-scheduler", "nodeagent schedule", "nodeagent/kube-sch.");
    const rows: Array<[string, (f: SchedulerFigures) => number | undefined, number]> = [
      ["pods created before the scheduler ran (s)", (f) => f.createdS, 1],
      ["pods bound", (f) => f.bound, 0],
      ["all bound, from the scheduler's start (s)", (f) => f.allBoundS, 1],
      ["throughput, pods bound per second (watch)", (f) => f.throughput, 1],
      ["throughput, from PodScheduled times (pods/s)", (f) => f.throughputByCondition, 1],
      ["pods Running", (f) => f.running, 0],
      ["all Running, from the scheduler's start (s)", (f) => f.allRunningS, 1],
      ["Deployment and pods deleted in (s)", (f) => f.deletedS, 1],
      ...[...new Set(fs.flatMap((f) => Object.keys(f.cpu)))].map(
        (k) => [`CPU, ${k} (% of a core)`, (f: SchedulerFigures) => f.cpu[k], 1] as [string, (f: SchedulerFigures) => number | undefined, number],
      ),
    ];
    for (const [label, get, d] of rows) {
      const a = ks && get(ks);
      const b = na && get(na);
      const ratio = a && b && label.startsWith("throughput") ? `${(b / a).toFixed(2)}×` : "–";
      row(label, n(a, d), n(b, d), ratio);
    }
    for (const f of fs) if (f.error) console.log(`  ${f.scheduler}: ${f.error}`);
  }
  if (failure) console.log(`  FAILED: ${failure}`);
  console.log(`\n${JSON.stringify({ nodes: o.nodes, pods: o.pods, readyS, rssMiB, readyCpu, restCpu, schedulers: fs, failure })}`);
}
