// bench/schedule.ts (make bench-schedule): the scheduler on scheduler_perf's workload shapes
// (k/k test/integration/scheduler_perf), binding into memory, in one process as scheduler_perf runs
// it (there without kubelets, here without agents):
//   SchedulingBasic           5000 nodes, 1000 pods already scheduled, 10000 pods measured
//   TopologySpreading         5000 nodes in 3 zones, 5000 pods already scheduled, 5000 measured pods
//                             with a zone spread constraint (maxSkew 5, DoNotSchedule)
//   SchedulingPodAntiAffinity 5000 nodes, 1000 pods already scheduled, 2000 measured pods, all with a
//                             required hostname anti-affinity to each other
// Nodes have 4 CPUs, 32 GiB and 110 pods; pods request 100m and 500Mi (scheduler_perf's templates).
// Throughput is measured pods / the time from their creation to the last one bound, printed as a
// ratio to upstream's thresholds for the same tests (reference/scheduler.md): 680, 460 and 60 pods/s.
// Target (issue 6): ≥ 1000 pods/s for SchedulingBasic.
import { cpus, loadavg } from "node:os";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { defaultConfig, InMemoryCluster, runUntilIdle, Scheduler } from "../src/scheduler";
import { FakeClock } from "../src/util/clock";

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function makeNode(i: number, zones: number): Node {
  const labels: Record<string, string> = { "kubernetes.io/hostname": `node-${i}` };
  if (zones > 0) labels["topology.kubernetes.io/zone"] = `moon-${(i % zones) + 1}`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: `node-${i}`, labels },
    status: { capacity: { cpu: "4", memory: "32Gi", pods: "110" }, allocatable: { cpu: "4", memory: "32Gi", pods: "110" } },
  };
}

let uid = 0;
function makePod(prefix: string, i: number, extra: Partial<NonNullable<Pod["spec"]>> = {}, labels?: Record<string, string>): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${prefix}-${i}`, namespace: "sched-0", uid: `bench-${++uid}`, ...(labels ? { labels } : {}) },
    spec: {
      schedulerName: "default-scheduler",
      containers: [{ name: "pause", image: "registry.k8s.io/pause:3.10", resources: { requests: { cpu: "100m", memory: "500Mi" }, limits: { cpu: "100m", memory: "500Mi" } } }],
      ...extra,
    },
  };
}

const spreading = (i: number) =>
  makePod("spreading", i, {
    topologySpreadConstraints: [{ maxSkew: 5, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: { color: "blue" } } }],
  }, { color: "blue" });

const antiAffine = (prefix: string) => (i: number) =>
  makePod(prefix, i, {
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: "color", operator: "In", values: ["green"] }] }, topologyKey: "kubernetes.io/hostname" }] } },
  }, { color: "green" });

interface Workload {
  name: string;
  threshold: number;
  zones: number;
  init: number;
  initPod: (i: number) => Pod;
  measured: number;
  measuredPod: (i: number) => Pod;
}

const WORKLOADS: Workload[] = [
  { name: "SchedulingBasic", threshold: 680, zones: 0, init: 1000, initPod: (i) => makePod("init", i), measured: 10_000, measuredPod: (i) => makePod("pod", i) },
  { name: "TopologySpreading", threshold: 460, zones: 3, init: 5000, initPod: (i) => makePod("init", i), measured: 5000, measuredPod: spreading },
  { name: "SchedulingPodAntiAffinity", threshold: 60, zones: 0, init: 1000, initPod: antiAffine("init"), measured: 2000, measuredPod: antiAffine("pod") },
];

async function run(w: Workload): Promise<{ podsPerSecond: number; scheduled: number }> {
  const clock = new FakeClock(Date.now());
  let scheduled = 0;
  const s = new Scheduler({ config: defaultConfig(), clock, onAttempt: (r) => void (r.outcome === "Scheduled" && scheduled++) });
  s.setClient(new InMemoryCluster(s));
  for (let i = 0; i < NODES; i++) s.onNodeAdd(makeNode(i, w.zones));
  for (let i = 0; i < w.init; i++) s.onPodAdd(w.initPod(i));
  await runUntilIdle(s, clock);
  scheduled = 0;
  const pods = Array.from({ length: w.measured }, (_, i) => w.measuredPod(i));
  const start = performance.now();
  for (const p of pods) s.onPodAdd(p);
  await runUntilIdle(s, clock);
  const seconds = (performance.now() - start) / 1000;
  return { podsPerSecond: scheduled / seconds, scheduled };
}

const load = () => loadavg()[0]!.toFixed(1);
console.log(`scheduler_perf shapes, ${NODES} nodes, binding into memory; best of ${ROUNDS} rounds on ${cpus().length} CPUs (load average ${load()}: the machine is shared)`);
console.log(["workload".padEnd(28), "measured".padStart(9), "pods/s".padStart(9), "threshold".padStart(10), "ratio".padStart(7)].join(" "));
let failed = false;
for (const w of WORKLOADS) {
  let best = 0;
  let scheduled = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const res = await run(w);
    if (res.podsPerSecond > best) best = res.podsPerSecond;
    scheduled = res.scheduled;
  }
  if (scheduled !== w.measured) {
    failed = true;
    console.error(`  ${w.name}: only ${scheduled} of ${w.measured} measured pods were scheduled`);
  }
  console.log([w.name.padEnd(28), String(w.measured).padStart(9), best.toFixed(0).padStart(9), String(w.threshold).padStart(10), `${(best / w.threshold).toFixed(2)}×`.padStart(7)].join(" "));
}
console.log(`load average at the end: ${load()}`);
if (failed) process.exit(1);
