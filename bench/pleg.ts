// bench/pleg.ts (make bench-pleg): the PLEG on a real containerd 1.7, in one run.
//  1. Detection latency, container exit → ContainerDied event, p50/p99 over 50 containers, for the
//     generic PLEG (1 s relist) and the evented one (event hint → relist of that pod).
//  2. Relist time at 0, 50 and 100 pods, as a ratio to the raw ListPodSandbox + ListContainers calls
//     timed in the same run, interleaved with them so machine noise hits both alike.
// Targets (issue 2): evented p99 ≤ 50 ms; relist ≤ 1.5× the raw calls.
import { Pleg, PodStatusCache, Relister, type PlegModeSetting } from "../src/pleg";
import { RealClock } from "../src/util";
import { removeAllPods, startNode, type TestNode } from "../test/e2e/node";
import { runContainer, runSandbox } from "../test/e2e/pods";

const CONTAINERS = Number(process.env.BENCH_CONTAINERS ?? 50);
const RELIST_ROUNDS = Number(process.env.BENCH_RELIST_ROUNDS ?? 60);
/** The exits are spread over this many seconds. */
const SPREAD_S = Number(process.env.BENCH_SPREAD_S ?? 10);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const median = (xs: number[]) => pct(xs, 50);
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;

/**
 * Starts CONTAINERS one-container pods that all exit after the last one was created (creating pods
 * would otherwise compete with the relists), spread over SPREAD_S seconds so the exits fall at every
 * point of a relist period. Resolves with the containers' ids once they are running.
 */
async function startExitingContainers(node: TestNode, label: string): Promise<string[]> {
  const exitAfter = Date.now() + CONTAINERS * 250 + 2000;
  const ids: string[] = [];
  for (let i = 0; i < CONTAINERS; i++) {
    const pod = await runSandbox(node, `${label}-${i}`, { hostNetwork: true });
    const sleep = ((exitAfter - Date.now()) / 1000 + Math.random() * SPREAD_S).toFixed(3);
    ids.push(await runContainer(node.client, pod, "main", ["sh", "-c", `sleep ${sleep}; exit 0`]));
  }
  if (Date.now() > exitAfter) console.error(`  (${label}: creating the pods took longer than planned: some exits overlap creation)`);
  return ids;
}

/** Milliseconds from each container's exit (the runtime's finishedAt) to when `seen` recorded it. */
async function sinceExit(node: TestNode, seen: Map<string, number>): Promise<number[]> {
  const out: number[] = [];
  for (const [id, at] of seen) {
    const st = await node.client.containerStatus(id);
    out.push(at - st.finishedAt / 1e6);
  }
  return out;
}

async function waitAll(seen: Map<string, number>, ids: string[], label: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (ids.some((id) => !seen.has(id)) && Date.now() < deadline) await Bun.sleep(50);
  const missed = ids.filter((id) => !seen.has(id)).length;
  if (missed) console.error(`  (${label}: ${missed} of ${ids.length} exits were not seen within 60 s)`);
}

/**
 * The floor: the runtime's own CONTAINER_STOPPED events on a raw GetContainerEvents stream, with no
 * PLEG running. (containerd 1.7 hands each event to only one stream, so the floor and the evented
 * PLEG cannot be measured on the same exits.)
 */
async function rawEventLatency(node: TestNode): Promise<number[]> {
  const seen = new Map<string, number>();
  const stream = node.client.containerEvents();
  const reader = (async () => {
    try {
      for await (const ev of stream) if (ev.containerEventType === "CONTAINER_STOPPED_EVENT" && !seen.has(ev.containerId)) seen.set(ev.containerId, Date.now());
    } catch {
      /* closed */
    }
  })();
  await Bun.sleep(1500); // the backlog of earlier events drains
  seen.clear();
  const ids = await startExitingContainers(node, "raw");
  await waitAll(seen, ids, "raw stream");
  stream.close();
  await reader;
  for (const k of [...seen.keys()]) if (!ids.includes(k)) seen.delete(k);
  const lat = await sinceExit(node, seen);
  await removeAllPods(node.client);
  return lat;
}

async function plegLatency(node: TestNode, mode: PlegModeSetting): Promise<number[]> {
  const pleg = new Pleg(node.client, new RealClock(), { mode });
  const ac = new AbortController();
  const running = pleg.run(ac.signal);
  while (pleg.mode !== (mode === "generic" ? "generic" : "evented")) await Bun.sleep(20);
  const seen = new Map<string, number>();
  const consumer = (async () => {
    for await (const e of pleg.events) if (e.type === "ContainerDied" && e.containerId && !seen.has(e.containerId)) seen.set(e.containerId, Date.now());
  })();
  const ids = await startExitingContainers(node, mode);
  await waitAll(seen, ids, mode);
  ac.abort();
  await running;
  await consumer;
  for (const k of [...seen.keys()]) if (!ids.includes(k)) seen.delete(k);
  const lat = await sinceExit(node, seen);
  await removeAllPods(node.client);
  return lat;
}

async function relistRatio(node: TestNode, pods: number): Promise<{ raw: number; relist: number }> {
  const have = (await node.client.listPodSandbox()).length;
  for (let i = have; i < pods; i++) {
    const pod = await runSandbox(node, `idle-${i}`, { hostNetwork: true });
    await runContainer(node.client, pod, "main", ["sleep", "3600"]);
  }
  const relister = new Relister(node.client, new PodStatusCache(), new RealClock(), () => {});
  await relister.relist(); // the first relist reads every pod's status; steady state is what repeats
  const raw: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < RELIST_ROUNDS; i++) {
    let t = performance.now();
    await Promise.all([node.client.listPodSandbox(), node.client.listContainers()]);
    raw.push(performance.now() - t);
    t = performance.now();
    await relister.relist();
    ours.push(performance.now() - t);
  }
  return { raw: median(raw), relist: median(ours) };
}

const node = await startNode("1.7");
try {
  const v = await node.client.version();
  console.log(`nodeagent PLEG benchmark on ${v.runtimeName} ${v.runtimeVersion}, ${CONTAINERS} containers per mode, exits spread over ${SPREAD_S} s\n`);
  console.log("Detection latency (container exit → ContainerDied):");
  const results: Record<string, unknown> = {};
  const row = (name: string, lat: number[]) => {
    const r = { n: lat.length, p50: median(lat), p99: pct(lat, 99), max: Math.max(...lat) };
    console.log(`  ${name.padEnd(34)} n=${r.n}  p50 ${ms(r.p50).padStart(9)}  p99 ${ms(r.p99).padStart(9)}  max ${ms(r.max).padStart(9)}`);
    return r;
  };
  results.latency_runtime_event = row("raw CONTAINER_STOPPED event (floor)", await rawEventLatency(node));
  for (const mode of ["generic", "evented"] as const) results[`latency_${mode}`] = row(`nodeagent PLEG, ${mode}`, await plegLatency(node, mode));
  const g = results.latency_generic as { p50: number; p99: number };
  const e = results.latency_evented as { p50: number; p99: number };
  const f = results.latency_runtime_event as { p50: number; p99: number };
  console.log(
    `  evented / raw event: p50 ${(e.p50 / f.p50).toFixed(2)}×, p99 ${(e.p99 / f.p99).toFixed(2)}×; evented / generic: p50 ${(e.p50 / g.p50).toFixed(3)}×`,
  );
  console.log(`  target evented p99 ≤ 50 ms: ${e.p99 <= 50 ? "met" : "NOT met"}\n`);

  console.log(`Relist time, median of ${RELIST_ROUNDS}, against the raw ListPodSandbox + ListContainers:`);
  for (const pods of [0, 50, 100]) {
    const r = await relistRatio(node, pods);
    results[`relist_${pods}`] = { ...r, ratio: r.relist / r.raw };
    console.log(
      `  ${String(pods).padStart(3)} pods  raw ${ms(r.raw).padStart(9)}  relist ${ms(r.relist).padStart(9)}  ratio ${(r.relist / r.raw).toFixed(2)}×   (target ≤ 1.5×: ${r.relist / r.raw <= 1.5 ? "met" : "NOT met"})`,
    );
  }
  console.log("\n" + JSON.stringify(results));
} finally {
  await node.stop();
}
