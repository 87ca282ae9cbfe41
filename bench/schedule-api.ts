// The same-run baseline of `make bench-schedule`: a private control plane (etcd + kube-apiserver from
// ../shared/control-plane/cluster.sh, on ports of its own), the workload's nodes and pods created
// through the API, and then, one after the other on the same API server and the same objects, the real
// kube-scheduler and `nodeagent schedule --kubeconfig` scheduling the measured pods.
//
// One run of one scheduler on one workload (ApiBench.run):
//   1. the measured pods are created while no scheduler runs: all of them are pending when it starts,
//      so the figure is the scheduler's, not the rate the harness creates pods at;
//   2. the scheduler starts; a watch on the measured pods stamps each one when it is first seen with
//      spec.nodeName (bound), on this process's clock;
//   3. throughput = pods bound after the first / time from the first bind to the last (the scheduler's
//      start-up — listing, cache sync — is reported apart, as "first bind after");
//   4. the scheduler is stopped (SIGTERM) and the measured pods are deleted (grace period 0) before the
//      next run, so every run starts from the same cluster.
// Both schedulers run with the sched.kubeconfig of cluster.sh (system:kube-scheduler). kube-scheduler
// gets leader election off and a client rate limit of 5000 qps (its default, 50 qps and burst 100,
// caps binding at about 50 pods/s; scheduler_perf lifts it too); ours has no client rate limit.
// Nothing here is a test: when the binaries are missing the baseline is skipped with the reason.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PatchStrategy, setHeaderOptions, type V1Namespace, type V1Node, type V1Pod } from "@kubernetes/client-node";
import type { Subprocess } from "bun";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { asBody } from "../src/cluster/wire";
import { KubeInformer, isConflict, loadKubeClient, type KubeClient } from "../src/kube";
import { RealClock } from "../src/util/clock";
import { errorMessage } from "../src/util/errors";
import { createLogger } from "../src/util/log";
import { eventually } from "../test/e2e/proc";
import { PHASE_LABEL } from "./schedule-workloads";
import { procUsage, USER_HZ } from "./usage";

const REPO = resolve(import.meta.dir, "..");
/** Requests in flight while creating objects: enough to keep the API server busy on two cores. */
const CREATE_CONCURRENCY = 32;

export type Contender = "kube-scheduler" | "nodeagent";

export interface ApiRunResult {
  contender: Contender;
  bound: number;
  /** Pods bound after the first, per second from the first bind to the last. */
  podsPerSecond: number;
  /** From the scheduler's start to the first bind (process start, list, cache sync), ms. */
  firstBindMs: number;
  /**
   * CPU time per pod bound between the first bind and the last, of the scheduler and of the API
   * server (ms): less sensitive to other jobs on a shared machine than pods/s, and it shows which side
   * of the API the time goes to.
   */
  schedulerCpuMsPerPod: number;
  apiserverCpuMsPerPod: number;
  /** Where the measured pods went: pod name → node. */
  placed: Map<string, string>;
  /** Set when not every measured pod was bound in time. */
  error?: string;
}

/** Where cluster.sh and the binaries are, or why the baseline cannot run. */
export type Availability = { ok: true; clusterSh: string; kubeBin: string } | { ok: false; why: string };

export function findControlPlane(): Availability {
  const kubeBin = process.env.KUBE_BIN ?? "/tmp/kube-1.24";
  const missing = ["kube-apiserver", "kube-scheduler", "etcd/usr/bin/etcd"].filter((b) => !existsSync(join(kubeBin, b)));
  if (missing.length > 0) return { ok: false, why: `no ${missing.join(", ")} under ${kubeBin} (run ../shared/control-plane/build.sh, or set KUBE_BIN)` };
  // The shared folder sits beside the main checkout; a worktree is one level deeper.
  const candidates = [process.env.CONTROL_PLANE_DIR, join(REPO, "../shared/control-plane"), join(REPO, "../../shared/control-plane")].filter(
    (d): d is string => !!d,
  );
  const clusterSh = candidates.map((d) => join(d, "cluster.sh")).find((f) => existsSync(f));
  if (!clusterSh) return { ok: false, why: `no cluster.sh in ${candidates.join(" or ")} (set CONTROL_PLANE_DIR)` };
  return { ok: true, clusterSh, kubeBin };
}

/** The ports of the private control plane: not cluster.sh's defaults, so that one running beside is left alone. */
export interface Ports {
  api: number;
  etcd: number;
  scheduler: number;
}

export function benchPorts(): Ports {
  return {
    api: Number(process.env.BENCH_API_PORT ?? 26443),
    etcd: Number(process.env.BENCH_ETCD_PORT ?? 33790),
    scheduler: Number(process.env.BENCH_SCHED_PORT ?? 28268),
  };
}

/** The first of these ports something already listens on (etcd's peer port is etcd + 10). */
export async function portInUse(ports: Ports): Promise<number | undefined> {
  for (const port of [ports.api, ports.etcd, ports.etcd + 10, ports.scheduler]) {
    const free = await new Promise<boolean>((done) => {
      const srv = createServer();
      srv.once("error", () => done(false));
      srv.listen(port, "127.0.0.1", () => srv.close(() => done(true)));
    });
    if (!free) return port;
  }
  return undefined;
}

/** Runs `fn` over the items with at most `limit` calls in flight. */
async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A child process of this benchmark, stopped by its PID: SIGTERM, then SIGKILL after 10 s. */
async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const killed = await Promise.race([proc.exited.then(() => false), Bun.sleep(10_000).then(() => true)]);
  if (killed) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

export class ApiBench {
  private readonly live = new Set<Subprocess>();
  private stopped = false;

  private constructor(
    private readonly cp: { clusterSh: string; kubeBin: string },
    private readonly rundir: string,
    private readonly ports: Ports,
    readonly client: KubeClient,
    private readonly nodeagent: string,
  ) {}

  /** Starts etcd and kube-apiserver in a new folder (cluster.sh up); stop() takes them down. */
  static async start(cp: { clusterSh: string; kubeBin: string }, ports: Ports, nodeagent: string): Promise<ApiBench> {
    const rundir = mkdtempSync(join(tmpdir(), "nodeagent-bench-schedule-"));
    const up = Bun.spawnSync(["bash", cp.clusterSh, "up", rundir], {
      env: { ...process.env, KUBE_BIN: cp.kubeBin, API_PORT: String(ports.api), ETCD_PORT: String(ports.etcd) },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (up.exitCode !== 0) {
      downCluster(cp.clusterSh, rundir);
      throw new Error(`cluster.sh up failed (${up.exitCode}): ${up.stderr.toString().trim()} ${up.stdout.toString().trim()}; logs in ${rundir}`);
    }
    const client = await loadKubeClient(join(rundir, "admin.kubeconfig"), { userAgent: "nodeagent-bench-schedule" });
    writeFileSync(
      join(rundir, "kube-scheduler.yaml"),
      [
        "apiVersion: kubescheduler.config.k8s.io/v1beta3",
        "kind: KubeSchedulerConfiguration",
        "clientConnection:",
        `  kubeconfig: ${join(rundir, "sched.kubeconfig")}`,
        "  qps: 5000",
        "  burst: 5000",
        "leaderElection:",
        "  leaderElect: false",
        "",
      ].join("\n"),
    );
    return new ApiBench(cp, rundir, ports, client, nodeagent);
  }

  get logs(): string {
    return this.rundir;
  }

  /** Stops the schedulers still running, then etcd and the API server (cluster.sh down, by their PIDs). */
  async stop(keepLogs: boolean): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const p of this.live) await stopProcess(p);
    downCluster(this.cp.clusterSh, this.rundir);
    if (!keepLogs) rmSync(this.rundir, { recursive: true, force: true });
  }

  /** On SIGINT/SIGTERM: everything this benchmark started, synchronously. */
  stopNow(): void {
    for (const p of this.live) p.kill("SIGKILL");
    downCluster(this.cp.clusterSh, this.rundir);
  }

  async createNamespace(name: string): Promise<void> {
    await this.ignoreConflict(() => this.client.core.createNamespace({ body: asBody<V1Namespace>({ metadata: { name } }) }));
  }

  /**
   * Nodes are created with their status (capacity, allocatable) as given, as scheduler_perf creates
   * them. The API server's TaintNodesByCondition admission taints every new Node
   * node.kubernetes.io/not-ready:NoSchedule, which the node lifecycle controller lifts once the kubelet
   * reports Ready; with neither here, the taint is taken off right after (admission runs on create only).
   */
  async createNodes(nodes: readonly Node[]): Promise<void> {
    const untaint = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
    await inParallel(nodes, CREATE_CONCURRENCY, async (n) => {
      await this.ignoreConflict(() => this.client.core.createNode({ body: asBody<V1Node>(n) }));
      await this.client.core.patchNode({ name: n.metadata!.name!, body: { spec: { taints: null } } }, untaint);
    });
  }

  async createPods(pods: readonly Pod[]): Promise<void> {
    await inParallel(pods, CREATE_CONCURRENCY, async (p) => {
      await this.client.core.createNamespacedPod({ namespace: p.metadata!.namespace!, body: asBody<V1Pod>(p) });
    });
  }

  /** Deletes the namespace's pods of one phase at once (grace period 0: there is no kubelet) and waits until they are gone. */
  async deletePods(namespace: string, phase: string): Promise<void> {
    const labelSelector = `${PHASE_LABEL}=${phase}`;
    await this.client.core.deleteCollectionNamespacedPod({ namespace, labelSelector, gracePeriodSeconds: 0 });
    await eventually(
      `pods ${labelSelector} in ${namespace} gone`,
      async () => {
        const list = await this.client.getJson<{ items: Pod[] }>(`/api/v1/namespaces/${namespace}/pods`, { labelSelector, limit: "1" });
        return list.items.length === 0;
      },
      120_000,
      200,
    );
  }

  /**
   * One scheduler over the measured pods (already created, all pending): started, timed by the binds
   * a watch sees, stopped. timeoutMs bounds the wait for the last bind.
   */
  async run(contender: Contender, label: string, namespace: string, measured: number, timeoutMs: number): Promise<ApiRunResult> {
    const boundAt = new Map<string, number>();
    const informer = new KubeInformer<Pod>({
      client: this.client,
      path: `/api/v1/namespaces/${namespace}/pods`,
      labelSelector: `${PHASE_LABEL}=measured`,
      clock: new RealClock(),
      log: createLogger("text", 1),
      what: `measured pods in ${namespace}`,
    });
    const apiserverPid = Number(readFileSync(join(this.rundir, "apiserver.pid"), "utf8"));
    let schedulerPid = 0;
    const ticks = (pid: number) => {
      try {
        return procUsage(pid).cpuTicks;
      } catch {
        return NaN; // gone: the run reports the exit
      }
    };
    const cpuTicks = () => [ticks(schedulerPid), ticks(apiserverPid)] as const;
    let cpuAtFirst: readonly [number, number] = [0, 0];
    let cpuAtLast: readonly [number, number] = [0, 0];
    informer.onChange((event, pod) => {
      const name = pod.metadata?.name ?? "";
      if (event === "delete" || !pod.spec?.nodeName || boundAt.has(name)) return;
      boundAt.set(name, performance.now());
      if (boundAt.size === 1) cpuAtFirst = cpuTicks();
      if (boundAt.size === measured) cpuAtLast = cpuTicks();
    });
    informer.start();
    await informer.synced();
    const pending = informer.list().filter((p) => !p.spec?.nodeName).length;
    if (pending !== measured) throw new Error(`${label}: ${pending} pending measured pods before ${contender} starts, want ${measured}`);
    const started = performance.now();
    const proc = this.spawn(contender, label);
    schedulerPid = proc.pid;
    let error: string | undefined;
    try {
      await eventually(`${measured} pods bound by ${contender}`, async () => boundAt.size >= measured || proc.exitCode !== null, timeoutMs, 50);
      if (proc.exitCode !== null) error = `${contender} exited ${proc.exitCode} after binding ${boundAt.size} of ${measured} pods (log in ${this.rundir})`;
    } catch (e) {
      error = `${errorMessage(e)}: ${boundAt.size} bound (log in ${this.rundir})`;
    } finally {
      await stopProcess(proc);
      this.live.delete(proc);
      rmSync(join(this.rundir, "sched.pid"), { force: true });
      await informer.stop();
    }
    const placed = new Map<string, string>();
    for (const p of informer.list()) if (p.spec?.nodeName) placed.set(p.metadata?.name ?? "", p.spec.nodeName);
    const times = [...boundAt.values()];
    const first = Math.min(...times);
    const last = Math.max(...times);
    return {
      contender,
      bound: boundAt.size,
      podsPerSecond: times.length > 1 ? ((times.length - 1) * 1000) / (last - first) : 0,
      firstBindMs: times.length > 0 ? first - started : NaN,
      schedulerCpuMsPerPod: ((cpuAtLast[0] - cpuAtFirst[0]) * 1000) / USER_HZ / Math.max(1, times.length - 1),
      apiserverCpuMsPerPod: ((cpuAtLast[1] - cpuAtFirst[1]) * 1000) / USER_HZ / Math.max(1, times.length - 1),
      placed,
      error,
    };
  }

  private spawn(contender: Contender, label: string): Subprocess {
    const log = (suffix: string) => Bun.file(join(this.rundir, `${contender}-${label}.${suffix}`));
    const sched = join(this.rundir, "sched.kubeconfig");
    const argv =
      contender === "kube-scheduler"
        ? [
            join(this.cp.kubeBin, "kube-scheduler"),
            "--config",
            join(this.rundir, "kube-scheduler.yaml"),
            "--authentication-kubeconfig",
            sched,
            "--authorization-kubeconfig",
            sched,
            "--bind-address=127.0.0.1",
            `--secure-port=${this.ports.scheduler}`,
            "-v=2",
          ]
        : [this.nodeagent, "schedule", "--kubeconfig", sched];
    const proc = Bun.spawn(argv, { stdin: "ignore", stdout: log("out"), stderr: log("err") });
    this.live.add(proc);
    // cluster.sh down stops it too, should this process be killed before it does.
    writeFileSync(join(this.rundir, "sched.pid"), String(proc.pid));
    return proc;
  }

  private async ignoreConflict(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
}

function downCluster(clusterSh: string, rundir: string): void {
  Bun.spawnSync(["bash", clusterSh, "down", rundir], { stdout: "ignore", stderr: "ignore" });
}
