// One scheduler's phase of `make bench-hollow-scale` (scale.ts): a Deployment of P small pods over the
// hollow fleet, bound by that scheduler, every pod Running in the API, then gone.
//
// The pods are made BEFORE the scheduler starts: kube-controller-manager's ReplicaSet controller creates
// them at its client's rate (KCM_QPS), which would otherwise be the throughput measured. So:
//   1. no scheduler runs; the Deployment is created; the time until all P pods exist (created);
//   2. the scheduler starts; the time until every pod is bound (spec.nodeName, seen on this bench's
//      watch) and until every pod is Running; throughput = pods bound per second between the first and
//      the last binding seen (and, as a check, the same from the pods' PodScheduled condition times,
//      which the API server sets at binding, one-second resolution);
//   3. the Deployment is deleted, then its pods (one DELETE of the collection: the ReplicaSet
//      controller would delete them at KCM_QPS); the time until the hollow nodes have let every pod go;
//   4. the scheduler is stopped.
// CPU of the hollow nodes, kube-apiserver, etcd, kube-controller-manager and the scheduler is measured
// from the scheduler's start to the last pod Running.
import { eventually } from "../../test/e2e/proc";
import { USER_HZ } from "../usage";
import type { HollowCluster } from "./cluster";
import { appPods, NAMESPACE } from "./measure";
import { treeTicks } from "./proc";

const PAUSE_IMAGE = "registry.k8s.io/pause:3.10";

/** A scheduler the phase starts and stops: kube-scheduler, or `nodeagent schedule --kubeconfig`. */
export interface SchedulerUnderTest {
  readonly name: string;
  /** The command line, for the report. */
  readonly argv: string[];
  start(): number;
  stop(): Promise<void>;
}

export interface SchedulerFigures {
  scheduler: string;
  pods: number;
  createdS: number;
  bound: number;
  /** Seconds from the scheduler's start until every pod was bound. */
  allBoundS: number;
  /** Pods bound per second, first to last binding (watch). */
  throughput: number;
  /** The same from the PodScheduled conditions' lastTransitionTime (whole seconds). */
  throughputByCondition: number;
  running: number;
  allRunningS: number;
  deletedS: number;
  /** % of one core from the scheduler's start to the last pod Running. */
  cpu: Record<string, number>;
  error?: string;
}

export interface PodsPhaseOptions {
  pods: number;
  /** The label of the hollow fleet's Nodes, which the pods select. */
  nodeLabel: [string, string];
  timeoutMs: number;
  /** The processes whose CPU is measured, by name (trees: their children count). */
  processes: Record<string, () => number>;
  say: (s: string) => void;
}

function deployment(name: string, replicas: number, nodeLabel: [string, string]) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NAMESPACE },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          nodeSelector: { [nodeLabel[0]]: nodeLabel[1] },
          terminationGracePeriodSeconds: 0,
          containers: [{ name: "pause", image: PAUSE_IMAGE, resources: { requests: { cpu: "1m", memory: "1Mi" } } }],
        },
      },
    },
  };
}

export async function schedulerPhase(cluster: HollowCluster, sched: SchedulerUnderTest, o: PodsPhaseOptions): Promise<SchedulerFigures> {
  const app = `scale-${sched.name.replace(/[^a-z0-9]+/g, "-")}`;
  const boundAt = new Map<string, number>();
  const runningAt = new Map<string, number>();
  const informer = appPods(cluster, app);
  informer.onChange((event, pod) => {
    if (event === "delete") return;
    const name = pod.metadata?.name ?? "";
    if (pod.spec?.nodeName && !boundAt.has(name)) boundAt.set(name, performance.now());
    if (pod.status?.phase === "Running" && !runningAt.has(name)) runningAt.set(name, performance.now());
  });
  informer.start();
  await informer.synced();
  const f: SchedulerFigures = {
    scheduler: sched.name,
    pods: o.pods,
    createdS: NaN,
    bound: 0,
    allBoundS: NaN,
    throughput: NaN,
    throughputByCondition: NaN,
    running: 0,
    allRunningS: NaN,
    deletedS: NaN,
    cpu: {},
  };
  const wait = (what: string, done: () => boolean) => eventually(what, async () => done(), o.timeoutMs, 250);
  try {
    let t = performance.now();
    await cluster.call("POST", `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(app, o.pods, o.nodeLabel));
    await wait(`${o.pods} pods created`, () => informer.list().length >= o.pods);
    f.createdS = (performance.now() - t) / 1000;
    o.say(`${o.pods} pods created (no scheduler running) in ${f.createdS.toFixed(1)} s; starting ${sched.name}`);

    const ticks0 = Object.fromEntries(Object.entries(o.processes).map(([k, pid]) => [k, treeTicks([pid()])]));
    t = performance.now();
    const schedPid = sched.start();
    const schedTicks0 = treeTicks([schedPid]);
    try {
      await wait(`${o.pods} pods bound`, () => boundAt.size >= o.pods);
      f.allBoundS = (performance.now() - t) / 1000;
      o.say(`all bound ${f.allBoundS.toFixed(1)} s after ${sched.name} started`);
      await wait(`${o.pods} pods Running`, () => runningAt.size >= o.pods);
      f.allRunningS = (performance.now() - t) / 1000;
      o.say(`all Running ${f.allRunningS.toFixed(1)} s after ${sched.name} started`);
    } catch (e) {
      f.error = `${(e as Error).message}: ${boundAt.size} bound, ${runningAt.size} Running`;
      o.say(f.error);
    }
    const seconds = (performance.now() - t) / 1000;
    for (const [k, pid] of Object.entries(o.processes)) f.cpu[k] = ((treeTicks([pid()]) - ticks0[k]!) / USER_HZ / seconds) * 100;
    f.cpu.scheduler = ((treeTicks([schedPid]) - schedTicks0) / USER_HZ / seconds) * 100;
    f.bound = boundAt.size;
    f.running = runningAt.size;
    const binds = [...boundAt.values()].sort((a, b) => a - b);
    if (binds.length > 1) f.throughput = (binds.length - 1) / ((binds.at(-1)! - binds[0]!) / 1000);
    const conds = informer
      .list()
      .map((p) => Date.parse(p.status?.conditions?.find((c) => c.type === "PodScheduled" && c.status === "True")?.lastTransitionTime ?? ""))
      .filter((x) => !Number.isNaN(x))
      .sort((a, b) => a - b);
    // Whole seconds: the span is last − first + 1 s.
    if (conds.length > 1) f.throughputByCondition = conds.length / ((conds.at(-1)! - conds[0]! + 1000) / 1000);
  } finally {
    const t = performance.now();
    try {
      await cluster.call("DELETE", `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${app}?propagationPolicy=Background`).catch(() => undefined);
      await eventually(
        `the ReplicaSets of ${app} gone`,
        async () =>
          (await cluster.call<{ items: unknown[] }>("GET", `/apis/apps/v1/namespaces/${NAMESPACE}/replicasets?labelSelector=app%3D${app}`)).items.length === 0,
        60_000,
        500,
      );
      await cluster.call("DELETE", `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=app%3D${app}`);
      await wait(`the pods of ${app} gone`, () => informer.list().length === 0);
      f.deletedS = (performance.now() - t) / 1000;
      o.say(`Deployment and pods deleted in ${f.deletedS.toFixed(1)} s`);
    } catch (e) {
      f.error ??= `deleting: ${(e as Error).message} (${informer.list().length} pods left)`;
      o.say(`deleting: ${(e as Error).message} (${informer.list().length} pods left)`);
    }
    await sched.stop();
    await informer.stop();
  }
  return f;
}
