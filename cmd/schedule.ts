// `nodeagent schedule`: the kube-scheduler's framework placing pods onto nodes — a cluster dump, live
// agents, or both — printing each pod's node or its FailedScheduling message, and with --explain
// every plugin's verdict and score on every node. --bind pushes placed pods to their agents; --watch
// runs it as a scheduler over a directory of pending pods; --kubeconfig runs it as a scheduler of a
// Kubernetes cluster (loaded lazily: the other modes do not pay for the Kubernetes client).
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import type { Node, Pod } from "kubernetes-types/core/v1";
import {
  AgentClient, AgentCluster, collectObjects, defaultConfig, defaultProfile, formatAttempt, formatReports, isTerminal, parseSchedulerConfig, preparePod,
  readPaths, runWatch, scheduleOnce, seededRandom, type ClusterObjects, type OutputFormat, type SchedulerConfig,
} from "../src/scheduler";
import { createLogger, parseDuration, type LogFormat, type Logger } from "../src/util";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./main";

/** Every value of a repeatable flag (--node a --node b, --node=a, or comma-separated). */
function repeated(rawArgs: readonly string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const a = rawArgs[i]!;
    if (a === `--${flag}`) {
      const v = rawArgs[i + 1];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`--${flag} needs a value`);
      out.push(v);
      i++;
    } else if (a.startsWith(`--${flag}=`)) {
      out.push(a.slice(flag.length + 3));
    }
  }
  return out.flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
}

function readStdin(): string {
  return readFileSync(0, "utf8");
}

export const scheduleCommand = defineCommand({
  meta: {
    name: "schedule",
    description: `Place pods onto nodes with the Kubernetes scheduling framework, and say why.

Pods come from files, directories or "-" (stdin): a Pod, a List, or several YAML documents. Nodes come
from --cluster, a dump such as \`kubectl get nodes,pods -A -o yaml\` (bound pods use up their nodes;
its pending pods are scheduled too, as the cluster's scheduler would), and/or from live agents with
--node URL (their GET /node and GET /pods). The queue, the extension points (PreEnqueue, QueueSort,
PreFilter, Filter, PostFilter, PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind) and the
default plugins behave as kube-scheduler's: PrioritySort, SchedulingGates, NodeUnschedulable,
NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, NodeResourcesBalancedAllocation,
ImageLocality, PodTopologySpread, InterPodAffinity, DefaultPreemption, DefaultBinder.
Not supported: the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone, NodeVolumeLimits —
there are no PersistentVolume or StorageClass objects here) and DynamicResources; a --config naming
them is accepted and they are left out.

Each pod gets its node, or the FailedScheduling message worded as kube-scheduler words it
("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: …").
--explain adds, for every node, every Filter plugin's verdict and reason, and every Score plugin's
raw, normalised and weighted score — untruncated. A run without --bind changes nothing: placements
and preemptions happen in memory, retried with the real backoff on a simulated clock.

--bind pushes each placed pod (spec.nodeName set) to its node's agent with POST /pods and the bearer
token of --push-token-file; preemption deletes victims there. --watch --pending-dir DIR runs as a
scheduler until Ctrl-C: pods dropped into DIR are queued, unschedulable ones wait for the nodes to
change (the agents are polled every --poll-interval) and are retried, placed ones are bound and their
file moves to DIR/bound/. --watch binds.

--kubeconfig FILE runs it as a scheduler of a Kubernetes cluster until Ctrl-C (SIGINT/SIGTERM): it
watches the nodes and the pods, schedules the pending pods whose spec.schedulerName is
--scheduler-name (default: the profile's, default-scheduler; with --config it picks that profile),
binds them through the pods/binding subresource, and records each failure as kube-scheduler does:
condition PodScheduled=False (reason Unschedulable or SchedulerError, the message above) and a
FailedScheduling event; a success gets a Scheduled event. It needs kube-scheduler's rights, no more.
Each decision is printed as one line (-o json: one object a line).

Examples:
  nodeagent schedule --cluster cluster.yaml pod.yaml
  kubectl get nodes,pods -A -o yaml > cluster.yaml; nodeagent schedule --cluster cluster.yaml --explain
  nodeagent schedule --node http://10.0.0.5:10250 --node http://10.0.0.6:10250 deploy/ -o json | jq .
  nodeagent schedule --node http://10.0.0.5:10250 --push-token-file token --bind web.yaml
  nodeagent schedule --watch --pending-dir /var/lib/nodeagent/pending --node http://10.0.0.5:10250 --push-token-file token
  nodeagent schedule --config sched.yaml --cluster cluster.yaml big.yaml   (KubeSchedulerConfiguration profiles)
  nodeagent schedule --kubeconfig /etc/kubernetes/scheduler.conf --scheduler-name nodeagent-scheduler -o json

Exit status: 0 when every pod was placed, 1 when one was not (or binding failed), 2 on a usage error;
with --kubeconfig: 0 after Ctrl-C, 1 when the API server cannot be reached at start.`,
  },
  args: {
    cluster: { type: "string", description: "Cluster dump: nodes, pods (bound and pending), namespaces, PriorityClasses, Services and controllers" },
    node: { type: "string", description: "A live agent's URL, e.g. http://10.0.0.5:10250 (repeatable)" },
    config: { type: "string", description: "KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) YAML: profiles, plugins, weights, args" },
    explain: { type: "boolean", description: "Every plugin's verdict and score on every node, for every attempt" },
    output: { type: "enum", alias: "o", options: ["table", "json", "yaml"], default: "table", description: "table | json (one object a line) | yaml" },
    bind: { type: "boolean", description: "Push placed pods to their agents (needs --node and --push-token-file)" },
    watch: { type: "boolean", description: "Run as a scheduler over --pending-dir until stopped" },
    "pending-dir": { type: "string", description: "With --watch: the directory of pods to schedule" },
    "push-token-file": { type: "string", description: "File holding the agents' bearer token (their --push-token-file)" },
    "poll-interval": { type: "string", default: "1s", description: "With --watch: how often the agents are polled" },
    kubeconfig: { type: "string", description: "Schedule in a Kubernetes cluster: the kubeconfig to reach its API server with" },
    "scheduler-name": { type: "string", description: "With --kubeconfig: schedule the pods with this spec.schedulerName (default: the profile's, default-scheduler)" },
    context: { type: "string", description: "With --kubeconfig: the kubeconfig context to use (default: its current-context)" },
    seed: { type: "string", description: "Seed for breaking equal scores, for reproducible runs (default: random)" },
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "Log format on stderr: text | json" },
  },
  async run({ args, rawArgs }) {
    // citty drops a subcommand's return value; cmd/main.ts exits with process.exitCode.
    process.exitCode = await schedule(args, rawArgs);
    return process.exitCode;
  },
});

type ScheduleArgs = Parameters<NonNullable<typeof scheduleCommand.run>>[0]["args"];

/** The combinations of flags that make no sense, as usage errors. */
function checkUsage(args: ScheduleArgs, nodeURLs: readonly string[], podPaths: readonly string[]): void {
  if (args.kubeconfig !== undefined) return checkClusterUsage(args, nodeURLs, podPaths);
  for (const flag of ["scheduler-name", "context"] as const) if (args[flag] !== undefined) throw new UsageError(`--${flag} is for --kubeconfig`);
  const live = args.watch ? "--watch" : "--bind";
  for (const u of nodeURLs) if (!/^https?:\/\//.test(u)) throw new UsageError(`--node ${JSON.stringify(u)}: use the agent's URL, e.g. http://127.0.0.1:10250`);
  if ((args.bind || args.watch) && nodeURLs.length === 0) throw new UsageError(`${live} needs live nodes: --node URL`);
  if ((args.bind || args.watch) && !args["push-token-file"]) throw new UsageError(`${live} needs --push-token-file: the agents' POST /pods takes a bearer token`);
  if (args.bind && args.cluster) throw new UsageError("--bind cannot bind to the nodes of a --cluster dump; give only --node");
  if (args.watch && !args["pending-dir"]) throw new UsageError("--watch needs --pending-dir DIR");
  if (args["pending-dir"] && !args.watch) throw new UsageError("--pending-dir is for --watch");
  if (args.watch && (args.cluster || podPaths.length > 0)) throw new UsageError("--watch takes pods from --pending-dir only, and nodes from --node only");
  if (!args.watch && podPaths.length === 0 && !args.cluster) throw new UsageError("give pods to place (files, directories or -) and/or --cluster with pending pods");
  if (!args.watch && nodeURLs.length === 0 && !args.cluster) throw new UsageError("give nodes: --cluster FILE and/or --node URL");
}

/** --kubeconfig: the cluster is the source of nodes and pods, and the binder; nothing else may be given. */
function checkClusterUsage(args: ScheduleArgs, nodeURLs: readonly string[], podPaths: readonly string[]): void {
  if (!args.kubeconfig) throw new UsageError("--kubeconfig needs a file");
  const others: Array<[string, boolean]> = [
    ["--cluster", args.cluster !== undefined],
    ["--node", nodeURLs.length > 0],
    ["--pending-dir", args["pending-dir"] !== undefined],
    ["--watch", !!args.watch],
    ["--bind", !!args.bind],
    ["--push-token-file", args["push-token-file"] !== undefined],
    ["--seed", args.seed !== undefined],
  ];
  const given = others.filter(([, g]) => g).map(([f]) => f);
  if (given.length > 0) throw new UsageError(`--kubeconfig takes nodes and pods from the cluster and binds there: it cannot be combined with ${given.join(", ")}`);
  if (podPaths.length > 0) throw new UsageError(`--kubeconfig schedules the cluster's pending pods: create pods in the cluster instead of giving files (${podPaths.join(" ")})`);
  if (args["scheduler-name"] === "") throw new UsageError("--scheduler-name needs a name");
}

/**
 * The profiles a cluster scheduler runs: --scheduler-name picks that profile of --config (or is the
 * name of the default profile); without it, every profile of --config, or default-scheduler.
 */
function clusterProfiles(config: SchedulerConfig, fromFile: boolean, name: string | undefined): SchedulerConfig {
  if (name === undefined) return config;
  if (!fromFile) return { ...config, profiles: [defaultProfile(name)] };
  const profile = config.profiles.find((p) => p.schedulerName === name);
  if (!profile) throw new UsageError(`--scheduler-name ${JSON.stringify(name)}: --config has no such profile (profiles: ${config.profiles.map((p) => p.schedulerName).join(", ")})`);
  return { ...config, profiles: [profile] };
}

function readFileOrUsage(flag: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`--${flag} ${path}: ${(e as Error).message}`);
  }
}

function loadConfig(path: string | undefined, log: Logger): SchedulerConfig {
  if (!path) return defaultConfig();
  try {
    return parseSchedulerConfig(readFileOrUsage("config", path), path, (m) => log.warn(m));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

async function schedule(args: ScheduleArgs, rawArgs: readonly string[]): Promise<number> {
  const log = createLogger(args["log-format"] as LogFormat);
  const nodeURLs = repeated(rawArgs, "node");
  const podPaths = args._ ?? [];
  checkUsage(args, nodeURLs, podPaths);
  let random: (() => number) | undefined;
  if (args.seed !== undefined) {
    const n = Number(args.seed);
    if (!Number.isInteger(n)) throw new UsageError(`--seed ${JSON.stringify(args.seed)}: use a whole number`);
    random = seededRandom(n);
  }
  const config = loadConfig(args.config, log);
  if (args.kubeconfig) return scheduleInCluster(args, clusterProfiles(config, !!args.config, args["scheduler-name"]), log);
  let token: string | undefined;
  if (args["push-token-file"]) {
    token = readFileOrUsage("push-token-file", args["push-token-file"]).trim();
    if (!token) throw new UsageError(`--push-token-file ${args["push-token-file"]} is empty`);
  }
  const agents = nodeURLs.map((u) => new AgentClient(u, token));
  const format = args.output as OutputFormat;
  const explain = !!args.explain;
  const out = (s: string) => process.stdout.write(s);
  if (args.watch) {
    let interval: number;
    try {
      interval = parseDuration(args["poll-interval"]);
    } catch (e) {
      throw new UsageError(`--poll-interval: ${(e as Error).message}`);
    }
    if (interval <= 0) throw new UsageError("--poll-interval must be positive");
    const ac = new AbortController();
    process.once("SIGINT", () => ac.abort());
    process.once("SIGTERM", () => ac.abort());
    await runWatch({ config, agents, pendingDir: args["pending-dir"]!, pollIntervalMs: interval, explain, log, signal: ac.signal, onAttempt: (a) => out(formatAttempt(a, format, explain)) });
    return EXIT_OK;
  }
  return scheduleSnapshot({ args, podPaths, agents, config, random, log, out, format, explain });
}

/** --kubeconfig: runs until SIGINT/SIGTERM, printing each attempt as it happens. */
async function scheduleInCluster(args: ScheduleArgs, config: SchedulerConfig, log: Logger): Promise<number> {
  const { loadKubeClient } = await import("../src/kube");
  const { InClusterScheduler, ApiServerUnreachable } = await import("../src/scheduler/in-cluster");
  let client: Awaited<ReturnType<typeof loadKubeClient>>;
  try {
    client = await loadKubeClient(args.kubeconfig!, { context: args.context });
  } catch (e) {
    throw new UsageError(`--kubeconfig: ${(e as Error).message}`);
  }
  const format = args.output as OutputFormat;
  const explain = !!args.explain;
  const sched = new InClusterScheduler({ client, config, log, explain, onAttempt: (a) => process.stdout.write(formatAttempt(a, format, explain)) });
  const ac = new AbortController();
  const abort = () => ac.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  try {
    await sched.connect();
  } catch (e) {
    if (!(e instanceof ApiServerUnreachable)) throw e;
    log.error(e.message);
    await sched.stop();
    return EXIT_FAILURE;
  }
  const names = config.profiles.map((p) => p.schedulerName).join(", ");
  log.info(`scheduling pods with schedulerName ${names} in the cluster at ${client.server}: ${sched.source.nodeNames().length} node(s)`);
  await sched.run(ac.signal);
  return EXIT_OK;
}

interface SnapshotRun {
  args: ScheduleArgs;
  podPaths: readonly string[];
  agents: AgentClient[];
  config: SchedulerConfig;
  random: (() => number) | undefined;
  log: Logger;
  out: (s: string) => void;
  format: OutputFormat;
  explain: boolean;
}

/** One pass over the cluster as it is now (a dump and/or the agents), binding with --bind. */
async function scheduleSnapshot(o: SnapshotRun): Promise<number> {
  const { args, log } = o;
  let dump: ClusterObjects;
  let inputs: ClusterObjects;
  try {
    dump = collectObjects(args.cluster ? readPaths([args.cluster], readStdin) : []);
    inputs = collectObjects(readPaths(o.podPaths, readStdin));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  for (const kinds of [dump.ignoredKinds, inputs.ignoredKinds]) if (kinds.size) log.info(`ignoring objects of kind ${[...kinds].join(", ")}`);
  const nodes = [...dump.nodes, ...inputs.nodes];
  const bound: Pod[] = [];
  const pending: Array<{ pod: Pod; origin: string }> = [];
  for (const { pod, origin } of dump.pods) {
    if (isTerminal(pod)) continue;
    if (pod.spec?.nodeName) bound.push(pod);
    else pending.push({ pod, origin });
  }
  for (const { pod, origin } of inputs.pods) {
    if (!pod.spec?.nodeName) {
      pending.push({ pod, origin });
      continue;
    }
    log.warn(`${origin}: pod ${pod.metadata?.namespace || "default"}/${pod.metadata?.name} is already bound to ${pod.spec.nodeName}; it counts on that node and is not scheduled`);
    bound.push(pod);
  }
  let cluster: AgentCluster | undefined;
  if (o.agents.length > 0) {
    const seen = { nodes: [] as Node[], pods: [] as Pod[] };
    const ignore = () => {};
    cluster = new AgentCluster(o.agents, { onNodeAdd: (n: Node) => seen.nodes.push(n), onPodAdd: (p: Pod) => seen.pods.push(p), onNodeUpdate: ignore, onNodeDelete: ignore, onPodUpdate: ignore, onPodDelete: ignore }, log);
    await cluster.sync();
    const answered = new Set(cluster.nodeNames().map((n) => cluster!.agentFor(n)));
    const missing = o.agents.filter((a) => !answered.has(a));
    if (missing.length > 0) {
      log.error(`no answer from ${missing.map((a) => a.url).join(", ")}`);
      return EXIT_FAILURE;
    }
    nodes.push(...seen.nodes);
    bound.push(...seen.pods);
  }
  const classes = [...dump.priorityClasses, ...inputs.priorityClasses];
  let prepared: Array<{ pod: Pod; origin: string }>;
  try {
    prepared = pending.map(({ pod, origin }) => ({ pod: preparePod(pod, origin, classes), origin }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const seenPods = new Map<string, string>();
  for (const { pod, origin } of prepared) {
    const key = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
    if (seenPods.has(key)) throw new UsageError(`${origin}: pod ${key} is also given at ${seenPods.get(key)}`);
    seenPods.set(key, origin);
  }
  if (prepared.length === 0) {
    log.info("no pending pods to place");
    return EXIT_OK;
  }
  const bindTo = args.bind ? cluster : undefined;
  const { reports } = await scheduleOnce({
    config: o.config,
    nodes,
    boundPods: bound,
    pendingPods: prepared,
    namespaces: dump.namespaces,
    workloads: dump.workloads,
    explain: o.explain,
    random: o.random,
    log,
    client: bindTo ? (s) => (bindTo.setEvents(s), bindTo) : undefined,
    maxAttempts: bindTo ? 5 : 10,
  });
  o.out(formatReports(reports, o.format, o.explain));
  return reports.every((r) => r.outcome === "Scheduled") ? EXIT_OK : EXIT_FAILURE;
}
