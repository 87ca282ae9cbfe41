// bench/soak.ts (make bench-soak): the agent over an hour on the real node, to see what grows.
// A containerd (1.7 when installed, else 1.6; SOAK_CONTAINERD to choose) and one agent on it run:
//   - SOAK_PODS (50) static pods with probes: 40 healthy (busybox httpd with an httpGet readiness
//     probe and an exec liveness probe, or `sleep` with exec readiness and liveness probes, half and
//     half) and SOAK_CRASHING (10) that exit 1 at once (restartPolicy Always: CrashLoopBackOff);
//   - every minute, churn: SOAK_CHURN (5) pods pushed through the push API (POST /pods) and the
//     previous minute's deleted (DELETE /pods/<ns>/<name>), and one manifest file added and another
//     removed, so that pods come and go through both sources all along.
// Every minute it samples the agent's RSS (/proc/<pid>/status VmRSS), its open fds (/proc/<pid>/fd),
// and from /metrics its heap objects (nodeagent_heap_objects), live timers (nodeagent_timers) and
// the event ring's size (nodeagent_event_ring_events), and prints a row. At the end: for each, the
// value at the start and end of the last 40 minutes (or the last two thirds of a shorter run) and the
// least-squares slope per hour over them, and whether it is flat. Flat: the fitted change over an
// hour is within 5 % of the mean over the window (or within an absolute floor for small counts: 2
// MiB RSS, 2 fds, 2 timers, 5,000 heap objects, 20 events). Printed, never asserted: a shared
// machine's figures are indicative.
//
// Usage: bun bench/soak.ts [--minutes N] [--binary PATH] (also SOAK_MINUTES, SOAK_BINARY, and
// SOAK_CGROUP_ROOT for two runs at once: /nodeagent-soak; default
// 60 minutes, dist/nodeagent). SOAK_CHURN_PERIOD_S churns every so many seconds instead of once per
// sample (a faster churn finds a leak sooner); SOAK_HEAP_DIR saves GET /debug/heap (the heap's object
// counts by type after a full GC) at each sample, to diff early against late. The /metrics text's size
// is followed too: series of pods that are gone must go with them. NODEAGENT_IMAGES must point at the test images. Everything it started
// (the agent, containerd, the pods, the CNI bridge, its cgroups) is stopped by PID and removed at the
// end, on SIGINT and SIGTERM too.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { EVENT_RING_SIZE } from "../src/events/event-ring";
import { manifest, TestAgent } from "../test/e2e/agent-harness";
import { BINARY, missingForRealNode, startNode, type TestNode } from "../test/e2e/node";
import { eventually } from "../test/e2e/proc";

const { values: flags } = parseArgs({
  args: Bun.argv.slice(2),
  options: { minutes: { type: "string" }, binary: { type: "string" } },
  strict: true,
});
const MINUTES = Number(flags.minutes ?? process.env.SOAK_MINUTES ?? 60);
const BINARY_PATH = flags.binary ?? process.env.SOAK_BINARY ?? BINARY;
const PODS = Number(process.env.SOAK_PODS ?? 50);
const CRASHING = Number(process.env.SOAK_CRASHING ?? 10);
const CHURN = Number(process.env.SOAK_CHURN ?? 5);
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_S ?? 60) * 1000;
const CGROUP_ROOT = process.env.SOAK_CGROUP_ROOT ?? "/nodeagent-soak";
/** Seconds between churn waves (default: one wave per sample); shorter churns faster than it samples. */
const CHURN_PERIOD_MS = Number(process.env.SOAK_CHURN_PERIOD_S ?? 0) * 1000;
/** Where to save GET /debug/heap (type counts after a full GC) at each sample: heap-<minute>.json. */
const HEAP_DIR = process.env.SOAK_HEAP_DIR;
if (!Number.isInteger(MINUTES) || MINUTES < 2)
  throw new Error(`--minutes: want a whole number of minutes ≥ 2, got ${flags.minutes ?? process.env.SOAK_MINUTES}`);

const version = (process.env.SOAK_CONTAINERD as "1.6" | "1.7" | undefined) ?? (missingForRealNode("1.7") ? "1.6" : "1.7");

const HTTPD = "mkdir -p /www && echo ok > /www/ok && exec httpd -f -p 8080 -h /www";
const HTTP_PROBES = `      readinessProbe:
        httpGet: { path: /ok, port: 8080 }
        periodSeconds: 5
      livenessProbe:
        exec: { command: ["true"] }
        periodSeconds: 10
`;
const EXEC_PROBES = `      readinessProbe:
        exec: { command: ["true"] }
        periodSeconds: 5
      livenessProbe:
        exec: { command: ["true"] }
        periodSeconds: 10
`;

/** The i-th steady pod's manifest: crash-looping, httpd with an httpGet probe, or sleep with exec probes. */
function steadyPod(i: number): string {
  const name = `soak-${String(i).padStart(2, "0")}`;
  if (i < CRASHING) return manifest(`${name}-crash`, "echo crashing; exit 1", { container: EXEC_PROBES });
  return i % 2 === 0 ? manifest(name, HTTPD, { container: HTTP_PROBES }) : manifest(name, "exec sleep 100000", { container: EXEC_PROBES });
}

interface Sample {
  minute: number;
  rssKiB: number;
  fds: number;
  heapObjects: number;
  timers: number;
  eventRing: number;
  pods: number;
  metricsBytes: number;
}

const METRICS: { key: keyof Omit<Sample, "minute" | "pods">; label: string; floor: number; unit: (v: number) => string }[] = [
  { key: "rssKiB", label: "RSS", floor: 2048, unit: (v) => `${(v / 1024).toFixed(1)} MiB` },
  { key: "heapObjects", label: "heap objects", floor: 5000, unit: (v) => v.toFixed(0) },
  { key: "timers", label: "timers", floor: 2, unit: (v) => v.toFixed(1) },
  { key: "fds", label: "open fds", floor: 2, unit: (v) => v.toFixed(1) },
  { key: "eventRing", label: "event ring", floor: 20, unit: (v) => v.toFixed(0) },
  { key: "metricsBytes", label: "/metrics size", floor: 2048, unit: (v) => `${(v / 1024).toFixed(1)} KiB` },
];

function rssKiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : Number.NaN;
}

function gauge(text: string, name: string): number {
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** Least-squares fit of y over x (minutes): slope per minute and the mean. */
export function leastSquares(xs: number[], ys: number[]): { slope: number; mean: number } {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
  }
  return { slope: sxx === 0 ? 0 : sxy / sxx, mean: my };
}

const pad = (s: string | number, n: number) => String(s).padStart(n);

async function main(): Promise<void> {
  let node: TestNode | undefined;
  let agent: TestAgent | undefined;
  let stopping: Promise<void> | undefined;
  let churning: ReturnType<typeof setInterval> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      clearInterval(churning);
      // The agent first (by its PID, SIGINT then SIGKILL after its grace), then the node: its pods
      // through the CRI, containerd by its PID, its mounts, bridge, leases and cgroups.
      if (agent?.proc) {
        const pid = agent.proc.proc.pid;
        await Promise.race([agent.stop().catch(() => {}), Bun.sleep(20_000)]);
        if (agent.proc.proc.exitCode === null) process.kill(pid, "SIGKILL");
      }
      await node?.stop().catch((e) => console.error(`stopping the node: ${e}`));
      agent?.cleanup();
    })());
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    process.on(sig, () => {
      console.log(`\n${sig}: stopping what the benchmark started`);
      void stopAll().then(() => process.exit(130));
    });
  }
  try {
    console.log(
      `soak: ${MINUTES} min, ${PODS} pods with probes (${CRASHING} crash-looping), ${CHURN} pushed and deleted and a manifest added and removed every minute; containerd ${version}; ${BINARY_PATH}`,
    );
    node = await startNode(version);
    agent = new TestAgent(node, [], BINARY_PATH, { cgroupRoot: CGROUP_ROOT });
    await agent.start();
    const a = agent;
    const pid = a.proc.proc.pid;
    console.log(`containerd ${version} at ${node.endpoint}; agent PID ${pid} at ${a.url}; bench PID ${process.pid}`);
    for (let i = 0; i < PODS; i++) a.writeManifest(`soak-${i}.yaml`, steadyPod(i));
    const steady = PODS - CRASHING;
    await eventually(
      `${steady} steady pods running`,
      async () => {
        const n = (await a.pods()).filter(
          (p) => p.metadata?.name?.startsWith("soak-") && !p.metadata.name.includes("crash") && p.status?.phase === "Running",
        ).length;
        return n >= steady ? n : undefined;
      },
      600_000,
      2_000,
    );
    console.log(`all ${steady} steady pods running; sampling every ${SAMPLE_MS / 1000} s\n`);

    const samples: Sample[] = [];
    let pushed: string[] = [];
    let wave = 0;
    const churn = async () => {
      // The previous minute's pushed pods go, new ones come; a manifest file is added and an older one removed.
      for (const name of pushed) {
        const r = await a.fetch(`/pods/default/${name}`, { method: "DELETE" });
        if (r.status !== 200) console.log(`  DELETE ${name}: ${r.status} ${await r.text()}`);
      }
      pushed = [];
      wave++;
      for (let i = 0; i < CHURN; i++) {
        const name = `push-${wave}-${i}`;
        const r = await a.fetch("/pods", {
          method: "POST",
          headers: { "content-type": "application/yaml" },
          body: manifest(name, "exec sleep 100000", { container: EXEC_PROBES }),
        });
        if (r.status !== 201 && r.status !== 200) console.log(`  POST ${name}: ${r.status} ${await r.text()}`);
        else pushed.push(name);
      }
      a.writeManifest(`churn-${wave}.yaml`, manifest(`churn-${wave}`, "exec sleep 100000", { container: EXEC_PROBES }));
      if (wave > 1) a.removeManifest(`churn-${wave - 1}.yaml`);
    };
    const sample = async (minute: number): Promise<Sample> => {
      const text = await (await a.fetch("/metrics")).text();
      const pods = (await a.pods()).length;
      return {
        minute,
        rssKiB: rssKiB(pid),
        fds: readdirSync(`/proc/${pid}/fd`).length,
        heapObjects: gauge(text, "nodeagent_heap_objects"),
        timers: gauge(text, "nodeagent_timers"),
        eventRing: gauge(text, "nodeagent_event_ring_events"),
        pods,
        metricsBytes: Buffer.byteLength(text),
      };
    };
    console.log(
      `${pad("min", 4)} ${pad("RSS MiB", 8)} ${pad("heap objects", 12)} ${pad("timers", 7)} ${pad("fds", 5)} ${pad("events", 7)} ${pad("pods", 5)} ${pad("metrics KiB", 11)}`,
    );
    let busy = false;
    if (CHURN_PERIOD_MS) {
      churning = setInterval(() => {
        if (busy) return;
        busy = true;
        void churn()
          .catch((e) => console.log(`  churn: ${e}`))
          .finally(() => (busy = false));
      }, CHURN_PERIOD_MS);
    }
    const t0 = Date.now();
    for (let minute = 0; minute <= MINUTES; minute++) {
      const due = t0 + minute * SAMPLE_MS;
      if (Date.now() < due) await Bun.sleep(due - Date.now());
      if (a.proc.proc.exitCode !== null) throw new Error(`the agent exited (${a.proc.proc.exitCode}) at minute ${minute}:\n${a.proc.stderr.slice(-4000)}`);
      const s = await sample(minute);
      samples.push(s);
      if (HEAP_DIR) {
        mkdirSync(HEAP_DIR, { recursive: true });
        writeFileSync(`${HEAP_DIR}/heap-${String(minute).padStart(3, "0")}.json`, await (await a.fetch("/debug/heap")).text());
      }
      console.log(
        `${pad(minute, 4)} ${pad((s.rssKiB / 1024).toFixed(1), 8)} ${pad(s.heapObjects, 12)} ${pad(s.timers, 7)} ${pad(s.fds, 5)} ${pad(s.eventRing, 7)} ${pad(s.pods, 5)} ${pad((s.metricsBytes / 1024).toFixed(1), 11)}`,
      );
      if (minute < MINUTES && !CHURN_PERIOD_MS) await churn();
    }

    clearInterval(churning);
    // The last 40 minutes (the first 20 are the warm-up: caches, the crash loops' backoff reaching its cap).
    const windowStart = MINUTES >= 60 ? MINUTES - 40 : Math.floor(MINUTES / 3);
    const window = samples.filter((s) => s.minute >= windowStart);
    console.log(
      `\nover minutes ${windowStart}–${MINUTES} (${window.length} samples): start, end, least-squares slope per hour; flat = |slope × 1 h| ≤ max(5 % of the mean, floor)`,
    );
    console.log(`${"".padEnd(13)} ${pad("start", 12)} ${pad("end", 12)} ${pad("slope/h", 12)} ${pad("mean", 12)}  verdict`);
    for (const m of METRICS) {
      const xs = window.map((s) => s.minute);
      const ys = window.map((s) => s[m.key]);
      const { slope, mean } = leastSquares(xs, ys);
      const perHour = slope * 60;
      const bound = Math.max(0.05 * Math.abs(mean), m.floor);
      const flat = Math.abs(perHour) <= bound;
      // The ring holds at most EVENT_RING_SIZE events: one that fills up within the window is bounded, not leaking.
      const capped = m.key === "eventRing" && ys.at(-1) === EVENT_RING_SIZE ? `; at the ring's cap of ${EVENT_RING_SIZE}` : "";
      console.log(
        `${m.label.padEnd(13)} ${pad(m.unit(ys[0]!), 12)} ${pad(m.unit(ys.at(-1)!), 12)} ${pad(`${perHour >= 0 ? "+" : "−"}${m.unit(Math.abs(perHour))}`, 12)} ${pad(m.unit(mean), 12)}  ${flat ? "flat" : `NOT flat (bound ${m.unit(bound)}/h)`}${capped}`,
      );
    }
    const restarts = (await a.pods()).filter((p) => p.metadata?.name?.includes("crash")).map((p) => p.status?.containerStatuses?.[0]?.restartCount ?? 0);
    console.log(`\ncrash-looping pods' restarts at the end: ${restarts.join(", ")}; churn waves: ${wave}`);
  } finally {
    await stopAll();
    console.log("soak: stopped the agent, containerd and the pods");
  }
}

if (import.meta.main) await main();
