// bench/pod-start.ts (make bench-pod-start): how fast a pod starts, in one run on containerd 1.6.
//  - raw CRI floor: RunPodSandbox + CreateContainer + StartContainer made directly, per pod, with
//    the configs the agent builds for the same manifest;
//  - nodeagent (dist/nodeagent, or BENCH_BINARY): manifest written → every container running as
//    GET /pods reports it;
//  - the same for the build before (`--baseline PATH`, make bench-pod-start BASELINE=PATH; without it
//    this build alone, and the output says so);
//  - podman kube play, when podman is installed (it is not on these machines by default).
// Each runs on a containerd of its own (three, started here), so that they can take turns pod by
// pod: on a machine others share, load comes and goes within seconds, and turns spread it evenly
// where one whole series after another would not. Two shapes, each against the floor's same shape:
// BENCH_PODS pods one at a time (p50, p99), then BENCH_BURSTS bursts of BENCH_BURST pods written at
// once (when the first is running, and when all are; the median over bursts; 0 leaves them out). Then the agent's RSS
// and CPU at rest with 0 and BENCH_IDLE_PODS pods (BENCH_IDLE_PODS=0 leaves that out).
// Targets (issue 14): one at a time p50 ≤ 1.10× the floor; in a burst, the first pod running within
// 1.5× the agent's one-at-a-time p50, and all of them no later than before.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { containerConfig, podLogDir, sandboxConfig, type RuntimeConfigOptions } from "../src/agent/runtime-config";
import { CriClient } from "../src/cri/client";
import { loadStaticPods } from "../src/manifest/load";
import { NODE_NAME, TestAgent, manifest } from "../test/e2e/agent-harness";
import { BINARY, BUSYBOX_IMAGE, CGROUP_PARENT, startNode, type TestNode } from "../test/e2e/node";
import { baselineFromArgs } from "./baseline";
import { fmtMs, percentile, usageOver } from "./usage";

const N = Number(process.env.BENCH_PODS ?? 30);
const BURST = Number(process.env.BENCH_BURST ?? 30);
const BURSTS = Math.max(0, Number(process.env.BENCH_BURSTS ?? 1));
const IDLE = Number(process.env.BENCH_IDLE_PODS ?? 100);
const AFTER = process.env.BENCH_BINARY || BINARY;
const BASELINE = baselineFromArgs();
const BEFORE = BASELINE.path;
console.log(BASELINE.note);
/** How often /pods is asked while waiting; every ask costs the agent a status of every pod. */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 2);
const pct = percentile;
const ms = fmtMs;

/** One contender's samples: each pod's latency one at a time, and each burst's latencies from its write. */
interface Samples {
  seq: number[];
  bursts: number[][];
}
const first = (xs: number[]) => Math.min(...xs);
const last = (xs: number[]) => Math.max(...xs);
/** The median over bursts of one burst figure (the first running, or all running). */
const burstFigure = (s: Samples, f: (xs: number[]) => number) => (s.bursts.length ? pct(s.bursts.map(f), 50) : Number.NaN);

/** Something that starts pods: `one` starts a pod and says how long it took, `burst` starts `count` at once. */
interface Contender {
  name: string;
  samples: Samples;
  one(i: number): Promise<number>;
  burst(round: number): Promise<number[]>;
}

/**
 * The floor: the very sandbox and container configs the agent sends for the same manifest (mounts,
 * labels, cgroup parent, log paths), made directly — RunPodSandbox, CreateContainer, StartContainer.
 */
async function floorContender(node: TestNode): Promise<Contender> {
  // A burst on a busy machine can keep one RunPodSandbox waiting past the test client's 30 s.
  const client = new CriClient(node.endpoint, { timeoutMs: 300_000 });
  clients.push(client);
  const options: RuntimeConfigOptions = {
    podLogsRoot: node.logDir,
    podsDir: join(node.rootDir, "floor-pods"),
    cgroupRoot: CGROUP_PARENT,
    nodeName: NODE_NAME,
    hostIP: "127.0.0.1",
  };
  const imageRef = (await client.imageStatus({ image: BUSYBOX_IMAGE })).image?.id ?? BUSYBOX_IMAGE;
  const podNamed = (name: string): Pod => {
    const loaded = loadStaticPods(manifest(name, "sleep 3600"), { source: "file", location: `/floor/${name}.yaml`, nodeName: NODE_NAME });
    if (!loaded.ok) throw new Error(`floor manifest ${name}: ${loaded.errors.map((e) => e.message).join("; ")}`);
    return loaded.pods[0]!;
  };
  const start = async (pod: Pod) => {
    // The floor makes emptyDir folders by hand where the agent's volume manager would.
    const volumePath = (name: string) => join(options.podsDir, pod.metadata!.uid!, "volumes", "kubernetes.io~empty-dir", name);
    for (const v of pod.spec!.volumes ?? []) if (v.emptyDir) mkdirSync(volumePath(v.name), { recursive: true, mode: 0o777 });
    const container = pod.spec!.containers[0]!;
    mkdirSync(join(podLogDir(pod, options), container.name), { recursive: true });
    mkdirSync(join(options.podsDir, pod.metadata!.uid!, "containers", container.name), { recursive: true });
    const sb = sandboxConfig(pod, 0, options);
    const sandboxId = await client.runPodSandbox(sb);
    const id = await client.createContainer(
      sandboxId,
      containerConfig({ pod, container, init: false, restartCount: 0, podIP: "", imageRef, options, volumePath }),
      sb,
    );
    await client.startContainer(id);
  };
  return {
    name: "raw CRI floor",
    samples: { seq: [], bursts: [] },
    async one(i) {
      const pod = podNamed(`raw-seq-${i}`);
      const t0 = performance.now();
      await start(pod);
      return performance.now() - t0;
    },
    async burst(round) {
      const pods = Array.from({ length: BURST }, (_, i) => podNamed(`raw-par${round}-${i}`));
      const t0 = performance.now();
      return Promise.all(
        pods.map(async (p) => {
          await start(p);
          return performance.now() - t0;
        }),
      );
    },
  };
}

/** Polls /pods until every named pod has all containers running; returns each pod's latency from t0. */
async function waitRunning(agent: TestAgent, names: string[], t0: number): Promise<number[]> {
  const done = new Map<string, number>();
  const wanted = new Set(names);
  const deadline = Date.now() + 120_000;
  while (done.size < names.length) {
    if (Date.now() > deadline) throw new Error(`pods not running after 120 s: ${names.filter((n) => !done.has(n)).join(", ")}`);
    const list = (await (await agent.fetch("/pods")).json()) as PodList;
    const now = performance.now();
    for (const p of list.items) {
      const name = p.metadata!.name!.replace(new RegExp(`-${NODE_NAME}$`), "");
      if (!done.has(name) && wanted.has(name) && p.status?.containerStatuses?.every((c) => c.state?.running)) done.set(name, now - t0);
    }
    await Bun.sleep(POLL_MS);
  }
  return names.map((n) => done.get(n)!);
}

function agentContender(name: string, agent: TestAgent): Contender {
  return {
    name,
    samples: { seq: [], bursts: [] },
    async one(i) {
      const n = `seq-${i}`;
      const t0 = performance.now();
      agent.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
      return (await waitRunning(agent, [n], t0))[0]!;
    },
    async burst(round) {
      const names = Array.from({ length: BURST }, (_, i) => `par${round}-${i}`);
      const t0 = performance.now();
      for (const n of names) agent.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
      return waitRunning(agent, names, t0);
    },
  };
}

/** RSS and CPU of the agent at rest over `seconds`. */
async function atRest(agent: TestAgent, pods: number, seconds: number): Promise<string> {
  const u = (await usageOver([agent.proc.proc.pid], seconds))[0]!;
  return `  agent at rest, ${String(pods).padStart(3)} pods: RSS ${u.rssMiB.toFixed(1)} MiB, CPU ${u.cpuPercent.toFixed(2)}% of a core`;
}

const nodes: TestNode[] = [];
const agents: TestAgent[] = [];
const clients: CriClient[] = [];
async function cleanup(): Promise<void> {
  for (const c of clients.splice(0)) c.close();
  for (const a of agents.splice(0)) await a.stop().catch(() => {});
  for (const n of nodes.splice(0)) await n.stop();
}
// Interrupted (Ctrl-C, a timeout): the containerds, agents and pods started here go too.
for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void cleanup().finally(() => process.exit(130)));
try {
  const binaries: [string, string][] = [["nodeagent", AFTER], ...(BEFORE ? [["nodeagent before", BEFORE] as [string, string]] : [])];
  const floorNode = await startNode("1.6");
  nodes.push(floorNode);
  const v = await floorNode.client.version();
  console.log(
    `nodeagent pod start benchmark on ${v.runtimeName} ${v.runtimeVersion}, CNI bridge network: ${N} pods one at a time, ${BURSTS} burst(s) of ${BURST}, each contender on a containerd of its own, taking turns`,
  );
  for (const [name, bin] of binaries) console.log(`  ${name}: ${bin}`);
  console.log("");
  const contenders: Contender[] = [await floorContender(floorNode)];
  for (const [name, binary] of binaries) {
    const node = await startNode("1.6");
    nodes.push(node);
    const agent = new TestAgent(node, ["--pleg-mode", "generic"], binary);
    agents.push(agent);
    await agent.start();
    contenders.push(agentContender(name, agent));
  }
  // Let the start-up settle (the first relists, the sources' first sets) before timing anything.
  await Bun.sleep(2000);
  const idleLines = IDLE > 0 ? [await atRest(agents[0]!, 0, 10)] : [];
  // Turns: who goes first rotates, so no contender always follows the same one.
  const turn = (i: number) => contenders.map((_, k) => contenders[(i + k) % contenders.length]!);
  for (let i = 0; i < N; i++) for (const c of turn(i)) c.samples.seq.push(await c.one(i));
  for (let r = 0; r < BURSTS; r++) {
    for (const c of turn(r)) {
      c.samples.bursts.push(await c.burst(r));
      // The burst's pods are all up; their shims and the agents' relists calm down before the next.
      await Bun.sleep(3000);
    }
  }
  if (!Bun.which("podman")) console.log("podman is not installed: no podman kube play row (install podman to compare)\n");

  const [floor, after, before] = contenders.map((c) => c.samples) as [Samples, Samples, Samples | undefined];
  const fseq = pct(floor.seq, 50);
  const fFirst = burstFigure(floor, first);
  const fAll = burstFigure(floor, last);
  console.log(`  ${"".padEnd(18)} one at a time: p50         p99          │ ${BURST} at once: first running      all running`);
  for (const c of contenders) {
    const s = c.samples;
    const r = (x: number, base: number) => (s === floor ? "       " : ` ${(x / base).toFixed(2)}×`.padEnd(7));
    const seq50 = pct(s.seq, 50);
    const f = burstFigure(s, first);
    const a = burstFigure(s, last);
    console.log(
      `  ${c.name.padEnd(18)} ${ms(seq50)}${r(seq50, fseq)} ${ms(pct(s.seq, 99))}${r(pct(s.seq, 99), pct(floor.seq, 99))} │ ${ms(f)}${r(f, fFirst)}  ${ms(a)}${r(a, fAll)}`,
    );
  }
  if (BURSTS > 0)
    for (const c of contenders)
      console.log(
        `  ${c.name.padEnd(18)} each burst: first ${c.samples.bursts.map((b) => first(b).toFixed(0)).join(", ")} ms; all ${c.samples.bursts.map((b) => last(b).toFixed(0)).join(", ")} ms`,
      );
  const seqRatio = pct(after.seq, 50) / fseq;
  const firstVsOwn = burstFigure(after, first) / pct(after.seq, 50);
  console.log(`\n  (ratios: to the floor's same figure)`);
  console.log(`  one at a time: p50 ${seqRatio.toFixed(2)}× the floor (target ≤ 1.10×): ${seqRatio <= 1.1 ? "met" : "NOT met"}`);
  if (BURSTS > 0)
    console.log(`  burst: first running ${firstVsOwn.toFixed(2)}× the agent's own one-at-a-time p50 (target ≤ 1.5×): ${firstVsOwn <= 1.5 ? "met" : "NOT met"}`);
  if (before && BURSTS > 0) {
    const allVsBefore = burstFigure(after, last) / burstFigure(before, last);
    console.log(
      `  burst: all running ${allVsBefore.toFixed(2)}× before (target ≤ 1.00×): ${allVsBefore <= 1 ? "met" : "NOT met"}; first running ${(burstFigure(after, first) / burstFigure(before, first)).toFixed(2)}× before`,
    );
    console.log(
      `  one at a time: p50 ${(pct(after.seq, 50) / pct(before.seq, 50)).toFixed(2)}× before; before's first running ${(burstFigure(before, first) / pct(before.seq, 50)).toFixed(2)}× its own one-at-a-time p50`,
    );
  }

  if (IDLE > 0) {
    // Fill the agent up to IDLE pods and measure it at rest.
    const have = N + BURSTS * BURST;
    const names = Array.from({ length: Math.max(0, IDLE - have) }, (_, i) => `idle-${i}`);
    for (const n of names) agents[0]!.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
    await waitRunning(agents[0]!, names, performance.now());
    await Bun.sleep(5000);
    idleLines.push(await atRest(agents[0]!, Math.max(IDLE, have), 20));
    console.log("\n" + idleLines.join("\n") + "  (the kubelet's CI ceiling at 100 pods: 0.35 core p50, 300 MiB)");
  }
  const summary = (s: Samples) => ({ seqP50: pct(s.seq, 50), seqP99: pct(s.seq, 99), burstFirst: burstFigure(s, first), burstAll: burstFigure(s, last) });
  console.log(
    "\n" +
      JSON.stringify({
        pods: N,
        burst: BURST,
        bursts: BURSTS,
        floor: summary(floor),
        after: summary(after),
        ...(before ? { before: summary(before) } : {}),
        seqRatio,
        firstVsOwn,
      }),
  );
} finally {
  const first = agents[0];
  await cleanup();
  first?.cleanup();
}
