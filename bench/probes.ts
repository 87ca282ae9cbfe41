// bench/probes.ts (make bench-probes): what exec probes cost, in one run on containerd 1.6.
//  - the agent's CPU with 100 pods each running an exec readiness probe every second, as a ratio to
//    the same 100 pods without probes (the kubelet's exec probes are a known CPU cost, k/k #82440);
//    containerd's CPU beside it, since every exec probe is an ExecSync it serves;
//  - probe latency as a ratio to a bare ExecSync of the same command on the same container, measured
//    alternately while the 100 pods' probes run: the prober in this process (the agent's code), and
//    the agent's own mean from prober_probe_duration_seconds over the same window.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PodList } from "kubernetes-types/core/v1";
import { Prober } from "../src/prober/prober";
import { RealClock } from "../src/util/clock";
import { TestAgent, manifest } from "../test/e2e/agent-harness";
import { startNode } from "../test/e2e/node";
import { eventually } from "../test/e2e/proc";
import { fmtMs, percentile, usageOver } from "./usage";

const PODS = Number(process.env.BENCH_PODS ?? 100);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 30);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 100);

const EXEC_PROBE = "      readinessProbe:\n        exec: { command: [\"true\"] }\n        periodSeconds: 1\n";

async function podList(agent: TestAgent): Promise<PodList> {
  return (await (await fetch(`${agent.url}/pods`)).json()) as PodList;
}

/**
 * Writes the pods and waits until every one runs. Not until every one is Ready: on a small machine
 * 100 exec probes a second can outrun the runtime (each is a runc exec), and probes then time out;
 * how many are Ready is part of the result.
 */
async function startPods(agent: TestAgent, prefix: string, probe: boolean): Promise<void> {
  for (let i = 0; i < PODS; i++) agent.writeManifest(`${prefix}-${i}.yaml`, manifest(`${prefix}-${i}`, "exec sleep 3600", probe ? { container: EXEC_PROBE } : {}));
  await eventually(`${PODS} ${prefix} pods running`, async () => {
    const pods = (await podList(agent)).items.filter((p) => p.metadata?.name?.startsWith(`${prefix}-`));
    return pods.filter((p) => p.status?.containerStatuses?.every((c) => c.state?.running)).length === PODS;
  }, 300_000, 500);
}

async function readyCount(agent: TestAgent): Promise<number> {
  return (await podList(agent)).items.filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
}

/** prober_probe_total summed by result. */
async function probeResults(agent: TestAgent): Promise<Record<string, number>> {
  const text = await (await fetch(`${agent.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^prober_probe_total\{[^}]*result="(\w+)"[^}]*\} ([0-9.e+-]+)$/gm)) out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  return out;
}

async function stopPods(agent: TestAgent, prefix: string): Promise<void> {
  for (let i = 0; i < PODS; i++) agent.removeManifest(`${prefix}-${i}.yaml`);
  await eventually(`the ${prefix} pods to go`, async () => (await podList(agent)).items.length === 0, 300_000, 500);
}

/** prober_probe_duration_seconds summed over every series: [sum, count]. */
async function probeDurationTotals(agent: TestAgent): Promise<[number, number]> {
  const text = await (await fetch(`${agent.url}/metrics`)).text();
  let sum = 0;
  let count = 0;
  for (const m of text.matchAll(/^prober_probe_duration_seconds_(sum|count)\{[^}]*\} ([0-9.e+-]+)$/gm)) {
    if (m[1] === "sum") sum += Number(m[2]);
    else count += Number(m[2]);
  }
  return [sum, count];
}

const node = await startNode("1.6");
const agent = new TestAgent(node, ["--pleg-mode", "generic"]);
try {
  await agent.start();
  const agentPid = agent.proc.proc.pid;
  const containerdPid = Number(readFileSync(join(node.rootDir, "run", "containerd.pid"), "utf8"));
  const v = await node.client.version();
  console.log(`nodeagent probe benchmark on ${v.runtimeName} ${v.runtimeVersion}: ${PODS} pods, exec readiness probe every 1 s, ${WINDOW_S} s windows\n`);

  await startPods(agent, "plain", false);
  await Bun.sleep(5000);
  const [agentPlain, ctrdPlain] = await usageOver([agentPid, containerdPid], WINDOW_S);
  await stopPods(agent, "plain");

  await startPods(agent, "probed", true);
  await Bun.sleep(5000);
  const results0 = await probeResults(agent);
  const [agentProbed, ctrdProbed] = await usageOver([agentPid, containerdPid], WINDOW_S);
  const results1 = await probeResults(agent);
  const ready = await readyCount(agent);
  const inWindow = Object.fromEntries(Object.entries(results1).map(([k, v]) => [k, v - (results0[k] ?? 0)]));
  const cpuRatio = agentProbed!.cpuPercent / Math.max(agentPlain!.cpuPercent, 0.01);
  console.log(`  agent CPU, ${PODS} pods without probes:  ${agentPlain!.cpuPercent.toFixed(2).padStart(6)}% of a core, RSS ${agentPlain!.rssMiB.toFixed(1)} MiB`);
  console.log(`  agent CPU, ${PODS} pods with exec probes: ${agentProbed!.cpuPercent.toFixed(2).padStart(6)}% of a core, RSS ${agentProbed!.rssMiB.toFixed(1)} MiB  (${cpuRatio.toFixed(2)}× without)`);
  console.log(`  containerd CPU, without / with probes: ${ctrdPlain!.cpuPercent.toFixed(2)}% / ${ctrdProbed!.cpuPercent.toFixed(2)}% of a core`);
  console.log(`  probes in the window: ${JSON.stringify(inWindow)} (${PODS * WINDOW_S} due); pods Ready at its end: ${ready}/${PODS}`);

  // Latency, while the probes above keep running: bare ExecSync and the prober, alternately.
  const target = (await podList(agent)).items[0]!.status!.containerStatuses![0]!.containerID!.replace(/^containerd:\/\//, "");
  const prober = new Prober(node.client, new RealClock());
  const bare: number[] = [];
  const probed: number[] = [];
  const [sum0, count0] = await probeDurationTotals(agent);
  // A saturated runtime answers late or not at all; those samples are counted, not dropped silently.
  let bareFailed = 0;
  let probeFailed = 0;
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    let t0 = performance.now();
    // The probe's own 1 s timeout, as the prober enforces it; the CRI call's deadline is far longer.
    const r = await Promise.race([node.client.execSync(target, ["true"], 1).catch(() => undefined), Bun.sleep(1000).then(() => undefined)]);
    bare.push(performance.now() - t0);
    if (r?.exitCode !== 0) bareFailed++;
    t0 = performance.now();
    const a = await prober.attempt(() => ({ kind: "exec", containerId: target, command: ["true"] }), 1000);
    probed.push(performance.now() - t0);
    if (a.result !== "success") probeFailed++;
  }
  const [sum1, count1] = await probeDurationTotals(agent);
  const agentMeanMs = ((sum1 - sum0) / Math.max(1, count1 - count0)) * 1000;
  const bareMean = bare.reduce((a, b) => a + b, 0) / bare.length;

  console.log(`\n  ${bareFailed} of ${LATENCY_SAMPLES} bare ExecSyncs and ${probeFailed} probe attempts failed or timed out (1 s)`);
  console.log(`  bare ExecSync                 p50 ${fmtMs(percentile(bare, 50))}  p99 ${fmtMs(percentile(bare, 99))}  mean ${fmtMs(bareMean)}`);
  console.log(`  prober exec attempt           p50 ${fmtMs(percentile(probed, 50))}  p99 ${fmtMs(percentile(probed, 99))}  (${(percentile(probed, 50) / percentile(bare, 50)).toFixed(2)}× bare at p50, ${(percentile(probed, 99) / percentile(bare, 99)).toFixed(2)}× at p99)`);
  console.log(`  the agent's own probes, mean                        ${fmtMs(agentMeanMs)}  (${(agentMeanMs / bareMean).toFixed(2)}× the bare mean; ${count1 - count0} probes)`);
  console.log("\n" + JSON.stringify({
    pods: PODS, probesInWindow: inWindow, ready, agentCpuPercent: { plain: agentPlain!.cpuPercent, probed: agentProbed!.cpuPercent, ratio: cpuRatio },
    containerdCpuPercent: { plain: ctrdPlain!.cpuPercent, probed: ctrdProbed!.cpuPercent },
    latencyFailures: { bare: bareFailed, prober: probeFailed },
    latencyMs: { bareP50: percentile(bare, 50), bareP99: percentile(bare, 99), proberP50: percentile(probed, 50), proberP99: percentile(probed, 99), agentMean: agentMeanMs, bareMean },
  }));
  await stopPods(agent, "probed");
} finally {
  await agent.stop().catch(() => {});
  await node.stop();
  agent.cleanup();
}
