// `nodeagent hollow`: N real nodes of a cluster in one process, over an in-memory runtime, to test a
// control plane, a scheduler or an operator at a scale one machine cannot host for real. Thin: the flags,
// then src/hollow's HollowFleet, then wait for SIGINT/SIGTERM and stop the fleet.
import { defineCommand } from "citty";
import { HollowFleet, MAX_HOLLOW_NODES, parseCapacity } from "../src/hollow";
import { AGENT_JIT_POLICY, ConfigError, createLogger, parseDuration, RealClock } from "../src/util";
import { EXIT_OK, UsageError } from "./exit";

/**
 * Bun's fetch keeps at most BUN_CONFIG_MAX_HTTP_REQUESTS requests open at once (256 by default; 65,336
 * at most), and reads it once, when the process starts. Every hollow node holds its watches open (its
 * pods, its Node, the objects its pods use, services) beside its calls, so a fleet of more than a few
 * dozen nodes needs a higher limit: the command runs itself again with it raised. Without this, the
 * watches take every slot and each registration waits until it times out.
 */
const FETCHES_PER_NODE = 16;
const MAX_FETCHES = 65_336;
const REEXEC_MARK = "NODEAGENT_HOLLOW_FETCH_LIMIT_SET";

async function rerunWithFetchLimit(nodes: number): Promise<number | undefined> {
  const want = Math.min(MAX_FETCHES, 256 + nodes * FETCHES_PER_NODE);
  const have = Number(process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? 256);
  if (have >= want || process.env[REEXEC_MARK]) return undefined;
  // The compiled binary's argv is ["bun", "/$bunfs/root/…", …args]; `bun cmd/nodeagent.ts` is [bun, script, …args].
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? false;
  const argv = [process.execPath, ...process.argv.slice(compiled ? 2 : 1)];
  const child = Bun.spawn(argv, {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(want), [REEXEC_MARK]: "1" },
    stdio: ["inherit", "inherit", "inherit"],
  });
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.on(sig, () => child.kill(sig));
  return await child.exited;
}

export const hollowCommand = defineCommand({
  meta: {
    name: "hollow",
    description: `Run many nodes of a Kubernetes cluster in one process, each the whole agent over a runtime that is not there.

Each hollow node is a real node of the cluster: it registers its Node, renews its Lease every 10 s,
watches the pods bound to it, admits them, runs them through its own sync loop, pod workers, PLEG and
probes, and writes their status, events and the Node's status as \`nodeagent agent\` does. Only what
touches the machine is imaginary: the container runtime keeps sandboxes and containers in memory (they
start after --pod-start-latency, run until stopped, answer exec probes, report small stats), the
cgroups are a tree in memory, and each node has an InternalIP of its own in 172.16.0.0/12 and a /24 of
pod IPs in 10.64.0.0/10, both from the node's index (processes sharing a cluster take disjoint
--first-index ranges). The nodes share one clock, one timer for every runtime and one HTTP connection
pool; each keeps its own state under --root-dir/<name>.

Pods can shape what their containers do with annotations: hollow.nodeagent.io/exit-after (a duration:
the containers exit then, for Jobs), hollow.nodeagent.io/exit-code, hollow.nodeagent.io/start-latency,
hollow.nodeagent.io/exec-exit-code (exec probes fail), hollow.nodeagent.io/ignore-sigterm.

Identity: --kubeconfig is one identity every node acts with (an admin's, as Kubernetes' scalability
tests run kubemark), or, with --bootstrap-kubeconfig, each node requests its own system:node:<name>
client certificate (TLS bootstrap) and is held to the Node authorizer like a kubelet; its kubeconfig
is written to --root-dir/<name>/kubeconfig.

Nodes start --start-parallelism at a time, each holding its place until its Node is registered; each node's calls to the API server are limited to --qps
with bursts of --burst (the kubelet's kubeAPIQPS and kubeAPIBurst). A node whose start fails is
retried. SIGINT or SIGTERM stops them all (their Leases then run out and the control plane marks them
NotReady, as for a node that went away).

Use it to test a control plane, a scheduler or an operator against many nodes; not to run workloads:
nothing runs. Unlike kubemark, the nodes share one process (kubemark: one kubelet process each);
unlike kwok, every node runs the node's real logic, so API traffic, status and timing are a node's.

Examples:
  nodeagent hollow --kubeconfig admin.conf --nodes 1000
  nodeagent hollow --kubeconfig admin.conf --nodes 50 --name-prefix hollow- --capacity cpu=8,memory=32Gi --node-labels type=hollow
  nodeagent hollow --kubeconfig admin.conf --nodes 500 --first-index 500   (a second process beside one with --nodes 500)
  nodeagent hollow --bootstrap-kubeconfig bootstrap.conf --nodes 100 --root-dir /var/lib/nodeagent-hollow

Exit status: 0 after SIGINT or SIGTERM, 2 on a usage or configuration error.`,
  },
  args: {
    kubeconfig: { type: "string", valueHint: "file", description: "The kubeconfig every node uses (without --bootstrap-kubeconfig)" },
    "bootstrap-kubeconfig": {
      type: "string",
      valueHint: "file",
      description: "TLS bootstrap credentials: each node gets its own system:node:<name> certificate",
    },
    nodes: { type: "string", valueHint: "N", description: "How many hollow nodes (1 to 16384)" },
    "name-prefix": { type: "string", default: "hollow-node-", description: "Node names are <prefix>K … <prefix>K+N-1, K the --first-index" },
    "first-index": {
      type: "string",
      default: "0",
      description: "The first node's index; give processes sharing a cluster disjoint ranges (addresses follow the index)",
    },
    "root-dir": { type: "string", valueHint: "dir", default: "/var/lib/nodeagent-hollow", description: "Each node's state is under <root-dir>/<name>" },
    "max-pods": { type: "string", default: "110", description: "Pods each node takes (the Node's pods capacity)" },
    capacity: { type: "string", default: "cpu=4,memory=8Gi,ephemeral-storage=100Gi", description: "Each node's machine: cpu=…,memory=…,ephemeral-storage=…" },
    "node-labels": { type: "string", description: "Labels each Node registers with, key=value,…" },
    "pod-start-latency": { type: "string", default: "0s", description: "How long the runtime takes to start a sandbox, and a container" },
    qps: { type: "string", default: "50", description: "Each node's API requests per second (the kubelet's kubeAPIQPS)" },
    burst: { type: "string", default: "100", description: "Each node's burst of API requests (the kubelet's kubeAPIBurst)" },
    "start-parallelism": { type: "string", default: "10", description: "How many nodes start (until their Node is registered), or stop, at the same time" },
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "Log format on stderr: text | json" },
  },
  async run({ args }) {
    const int = (flag: string, v: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || n < min || n > max) throw new UsageError(`--${flag} ${JSON.stringify(v)}: a whole number from ${min} to ${max}`);
      return n;
    };
    if (args.nodes === undefined) throw new UsageError("--nodes N is required");
    if (!args.kubeconfig && !args["bootstrap-kubeconfig"]) throw new UsageError("give --kubeconfig (one identity for every node) or --bootstrap-kubeconfig");
    if (args.kubeconfig && args["bootstrap-kubeconfig"])
      throw new UsageError("--kubeconfig and --bootstrap-kubeconfig exclude each other: each bootstrapped node writes its own");
    let podStartLatencyMs: number;
    try {
      podStartLatencyMs = parseDuration(args["pod-start-latency"]);
    } catch (e) {
      throw new UsageError(`--pod-start-latency: ${e instanceof Error ? e.message : String(e)}`);
    }
    const last = Number(args["first-index"]) + Number(args.nodes) - 1;
    if (last >= MAX_HOLLOW_NODES)
      throw new UsageError(
        `--first-index ${args["first-index"]} --nodes ${args.nodes}: the last index, ${last}, is past ${MAX_HOLLOW_NODES - 1} (the pod address ranges run out)`,
      );
    if (!/^[a-z0-9]([-a-z0-9]*)?$/.test(args["name-prefix"]))
      throw new ConfigError(`--name-prefix ${JSON.stringify(args["name-prefix"])}: lower-case letters, digits and '-', starting with a letter or digit`);
    const options = {
      kubeconfig: args.kubeconfig ?? "",
      ...(args["bootstrap-kubeconfig"] ? { bootstrapKubeconfig: args["bootstrap-kubeconfig"] } : {}),
      nodes: int("nodes", args.nodes, 1, MAX_HOLLOW_NODES),
      firstIndex: int("first-index", args["first-index"], 0, MAX_HOLLOW_NODES - 1),
      namePrefix: args["name-prefix"],
      rootDir: args["root-dir"],
      maxPods: int("max-pods", args["max-pods"], 1, 254),
      capacity: parseCapacity(args.capacity),
      ...(args["node-labels"] ? { nodeLabels: args["node-labels"] } : {}),
      podStartLatencyMs,
      qps: int("qps", args.qps, 1),
      burst: int("burst", args.burst, 1),
      startParallelism: int("start-parallelism", args["start-parallelism"], 1, 1000),
      logFormat: args["log-format"] as "text" | "json",
    };
    const rerun = await rerunWithFetchLimit(options.nodes);
    if (rerun !== undefined) {
      process.exitCode = rerun;
      return;
    }
    // The process runs agents from here on: the agent's JIT policy, as runNode takes it.
    Bun.unsafe.setJITPolicy(AGENT_JIT_POLICY);
    const log = createLogger(options.logFormat);
    const clock = new RealClock();
    const stopRequested = new Promise<string>((resolve) => {
      process.once("SIGINT", () => resolve("SIGINT"));
      process.once("SIGTERM", () => resolve("SIGTERM"));
    });
    const fleet = new HollowFleet(options, clock, log);
    const began = clock.now();
    let reported = 0;
    const started = fleet.start((s) => {
      // A line per tenth of the fleet, and the last: progress without a line per node.
      if (s.started === s.wanted || s.started - reported >= Math.max(1, Math.ceil(s.wanted / 10))) {
        reported = s.started;
        log.info("hollow nodes started", {
          started: s.started,
          of: s.wanted,
          startFailures: s.startFailures,
          seconds: Math.round((clock.now() - began) / 100) / 10,
        });
      }
    });
    const signal = await stopRequested;
    log.info("stopping the hollow nodes", { signal });
    await fleet.stop();
    await started;
    process.exitCode = EXIT_OK;
  },
});
