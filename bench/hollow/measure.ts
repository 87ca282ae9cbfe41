// What `make bench-hollow` measures of one contender's M hollow nodes, per node:
//   at rest (a window of BENCH_HOLLOW_WINDOW_S, 120 s, after the nodes are all Ready and have settled):
//     resident memory — the sum of VmRSS of the contender's processes and their children (proc.ts) at
//                       the window's end / M;
//     CPU             — utime+stime of those processes (and children) over the window / M, % of one core;
//     API requests    — the hollow nodes' requests received in the window (audit log) / M / minutes;
//   with pods (a Deployment of podsPerNode × M pause pods on these nodes, bound by kube-scheduler,
//   scaled up, all Running, scaled to 0, all gone): the same CPU and requests over that window, and
//     pod start latency — from when this benchmark's watch first sees a pod (the Pod's creation; its
//     creationTimestamp has one-second resolution) to when it sees the pod Running, p50 and p99.
// The API server's CPU over each window is measured too: the cost a contender puts on the control plane.
import type { Pod } from "kubernetes-types/core/v1";
import { KubeInformer } from "../../src/kube";
import { RealClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { eventually } from "../../test/e2e/proc";
import { percentile, USER_HZ } from "../usage";
import { ticks, treeRssMiB, treeTicks } from "./proc";
import type { HollowCluster, RequestCount } from "./cluster";
import type { Contender } from "./contenders";

export const NAMESPACE = "hollow-bench";

/** An informer over the bench's pods of one app (label app=<app>), for the phases that time them. */
export function appPods(cluster: HollowCluster, app: string): KubeInformer<Pod> {
  return new KubeInformer<Pod>({
    client: cluster.client,
    path: `/api/v1/namespaces/${NAMESPACE}/pods`,
    labelSelector: `app=${app}`,
    clock: new RealClock(),
    log: createLogger("text", 1),
    what: `pods of ${app}`,
  });
}
const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

export interface Window {
  seconds: number;
  /** Per node, % of one core. */
  cpuPercent: number;
  /** The API server, % of one core. */
  apiserverCpuPercent: number;
  requestsPerMinute: number;
  count: RequestCount;
}

export interface RestFigures extends Window {
  rssMiB: number;
}

export interface PodFigures extends Window {
  pods: number;
  running: number;
  p50Ms: number;
  p99Ms: number;
  error?: string;
}

/** A measuring window over the contender's processes and the API server. */
class Meter {
  private readonly t0 = Date.now();
  private readonly p0 = performance.now();
  private readonly offset: number;
  private readonly cpu0: number;
  private readonly api0: number;

  constructor(
    private readonly cluster: HollowCluster,
    private readonly c: Contender,
  ) {
    this.offset = cluster.auditOffset();
    this.cpu0 = this.cpuTicks();
    this.api0 = ticks(cluster.apiserverPid);
  }

  /** The contender's processes and their children (a `nodeagent hollow` that ran itself again). */
  private cpuTicks(): number {
    return treeTicks(this.c.pids);
  }

  /** Ends the window; the audit log is read a second later so requests in flight at the end are written. */
  async end(): Promise<Window> {
    const seconds = (performance.now() - this.p0) / 1000;
    const t1 = Date.now();
    const cpu = this.cpuTicks() - this.cpu0;
    const api = ticks(this.cluster.apiserverPid) - this.api0;
    await Bun.sleep(1000);
    const count = this.cluster.countHollowRequests(this.offset, this.t0, t1);
    return {
      seconds,
      cpuPercent: (cpu / USER_HZ / seconds / this.c.nodes) * 100,
      apiserverCpuPercent: (api / USER_HZ / seconds) * 100,
      requestsPerMinute: count.requests / this.c.nodes / (seconds / 60),
      count,
    };
  }
}

export async function measureRest(cluster: HollowCluster, c: Contender, seconds: number): Promise<RestFigures> {
  const meter = new Meter(cluster, c);
  await Bun.sleep(seconds * 1000);
  const rss = treeRssMiB(c.pids) / c.nodes;
  return { ...(await meter.end()), rssMiB: rss };
}

/** The benchmark's namespace, once its default ServiceAccount exists (kube-controller-manager makes it; pods need it). */
export async function ensureNamespace(cluster: HollowCluster): Promise<void> {
  await cluster.call("POST", "/api/v1/namespaces", { metadata: { name: NAMESPACE } }).catch((e: Error) => {
    if (!/ 409 /.test(e.message)) throw e;
  });
  await eventually(
    "the default ServiceAccount",
    () => cluster.call("GET", `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default`).then(() => true),
    60_000,
    500,
  );
}

function deployment(c: Contender, replicas: number) {
  const app = `hollow-${c.name}`;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: app, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          nodeSelector: { [c.label[0]]: c.label[1] },
          containers: [{ name: "pause", image: PAUSE_IMAGE }],
        },
      },
    },
  };
}

/**
 * podsPerNode × M pods up (all Running or the timeout), then down to none, in one window; the start
 * latency of each pod that got to Running.
 */
export async function measurePods(cluster: HollowCluster, c: Contender, podsPerNode: number, timeoutMs: number): Promise<PodFigures> {
  const app = `hollow-${c.name}`;
  const pods = podsPerNode * c.nodes;
  const seenAt = new Map<string, number>();
  const runningAt = new Map<string, number>();
  const informer = appPods(cluster, app);
  informer.onChange((event, pod) => {
    const name = pod.metadata?.name ?? "";
    if (event === "delete") return;
    if (!seenAt.has(name)) seenAt.set(name, performance.now());
    if (pod.status?.phase === "Running" && !runningAt.has(name)) runningAt.set(name, performance.now());
  });
  informer.start();
  await informer.synced();
  const meter = new Meter(cluster, c);
  let error: string | undefined;
  try {
    await cluster.call("POST", `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(c, pods));
    await eventually(`${pods} pods Running`, async () => runningAt.size >= pods || !c.alive(), timeoutMs, 200);
    if (!c.alive()) error = `a ${c.name} process exited with ${runningAt.size} of ${pods} pods Running`;
  } catch (e) {
    error = `${(e as Error).message}: ${runningAt.size} of ${pods} Running`;
  }
  try {
    await cluster.call("PATCH", `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${app}`, { spec: { replicas: 0 } }, "application/merge-patch+json");
    await eventually(`the pods of ${app} gone`, async () => informer.list().length === 0, timeoutMs, 200);
  } catch (e) {
    error ??= `scaling down: ${(e as Error).message} (${informer.list().length} left)`;
  }
  const window = await meter.end();
  await informer.stop();
  await cluster.call("DELETE", `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${app}`).catch(() => undefined);
  const latencies = [...runningAt].map(([name, at]) => at - (seenAt.get(name) ?? at));
  return {
    ...window,
    pods,
    running: runningAt.size,
    p50Ms: latencies.length ? percentile(latencies, 50) : NaN,
    p99Ms: latencies.length ? percentile(latencies, 99) : NaN,
    error,
  };
}
