// `nodeagent schedule`: the kube-scheduler's framework placing pods onto nodes — a cluster dump, live
// agents, or both — printing each pod's node or its FailedScheduling message, and with --explain
// every plugin's verdict and score on every node. --bind pushes placed pods to their agents; --watch
// runs it as a scheduler over a directory of pending pods; --kubeconfig runs it as a scheduler of a
// Kubernetes cluster (loaded lazily: the other modes do not pay for the Kubernetes client). Thin: the
// flags and how they combine, then src/scheduler (placePods, runWatch, InClusterScheduler), then print.
// src/scheduler itself is imported once the flags are checked: --help and usage errors do not load it.
import { readFileSync } from "node:fs";
import { defineCommand } from "citty";
import { type LogFormat, type Logger, createLogger, errorMessage, parseDuration, seededRandom } from "../src/util";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./exit";
import { withDeprecatedAlias } from "./flags";
import { invocation } from "./main";
import { loadKube } from "../src/kube";
import {
  AgentClient,
  collectObjects,
  type OutputFormat,
  type SchedulerConfig,
  defaultConfig,
  formatAttempt,
  formatReports,
  loadInClusterScheduler,
  parseSchedulerConfig,
  placePods,
  profilesFor,
  readPaths,
  runWatch,
} from "../src/scheduler";

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
token of --token-file; preemption deletes victims there. --watch --pending-dir DIR runs as a
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
  nodeagent schedule --node http://10.0.0.5:10250 --token-file token --bind web.yaml
  nodeagent schedule --watch --pending-dir /var/lib/nodeagent/pending --node http://10.0.0.5:10250 --token-file token
  nodeagent schedule --config sched.yaml --cluster cluster.yaml big.yaml   (KubeSchedulerConfiguration profiles)
  nodeagent schedule --kubeconfig /etc/kubernetes/scheduler.conf --scheduler-name nodeagent-scheduler -o json

Exit status: 0 when every pod was placed, 1 when one was not (or binding failed), 2 on a usage error;
with --kubeconfig: 0 after Ctrl-C, 1 when the API server cannot be reached at start.`,
  },
  args: {
    cluster: { type: "string", description: "Cluster dump: nodes, pods (bound and pending), namespaces, PriorityClasses, Services and controllers" },
    node: { type: "string", description: "A live agent's URL, e.g. https://10.0.0.5:10250 (repeatable)" },
    config: { type: "string", description: "KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) YAML: profiles, plugins, weights, args" },
    explain: { type: "boolean", description: "Every plugin's verdict and score on every node, for every attempt" },
    output: { type: "enum", alias: "o", options: ["table", "json", "yaml"], default: "table", description: "table | json (one object a line) | yaml" },
    bind: { type: "boolean", description: "Push placed pods to their agents (needs --node and --token-file)" },
    watch: { type: "boolean", description: "Run as a scheduler over --pending-dir until stopped" },
    "pending-dir": { type: "string", description: "With --watch: the directory of pods to schedule" },
    "token-file": withDeprecatedAlias(
      { type: "string", valueHint: "file", description: "File holding the agents' bearer token (their --push-token-file)" },
      "push-token-file",
    ),
    "certificate-authority": {
      type: "string",
      valueHint: "file",
      description: "The CA of the agents' serving certificates (an agent's own <root-dir>/pki/kubelet.crt)",
    },
    "insecure-skip-tls-verify": { type: "boolean", default: false, description: "Accept any serving certificate from the agents" },
    "poll-interval": { type: "string", default: "1s", description: "With --watch: how often the agents are polled" },
    kubeconfig: { type: "string", description: "Schedule in a Kubernetes cluster: the kubeconfig to reach its API server with" },
    "scheduler-name": {
      type: "string",
      description: "With --kubeconfig: schedule the pods with this spec.schedulerName (default: the profile's, default-scheduler)",
    },
    context: { type: "string", description: "With --kubeconfig: the kubeconfig context to use (default: its current-context)" },
    seed: { type: "string", description: "Seed for breaking equal scores, for reproducible runs (default: random)" },
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "Log format on stderr: text | json" },
    pods: { type: "positional", required: false, valueHint: "POD-FILE", description: "Pods to place: files, directories, or - for standard input" },
  },
  run: (ctx) =>
    schedule(
      ctx.args,
      invocation(ctx)
        .all("node")
        .flatMap((v) => v.split(","))
        .map((v) => v.trim())
        .filter(Boolean),
    ),
});

type ScheduleArgs = Parameters<NonNullable<typeof scheduleCommand.run>>[0]["args"];

/** src/scheduler, imported once the command line is known to be good. */

/** The combinations of flags that make no sense, as usage errors. */
function checkUsage(args: ScheduleArgs, nodeURLs: readonly string[], podPaths: readonly string[]): void {
  if (args.kubeconfig !== undefined) return checkClusterUsage(args, nodeURLs, podPaths);
  for (const flag of ["scheduler-name", "context"] as const) if (args[flag] !== undefined) throw new UsageError(`--${flag} is for --kubeconfig`);
  const live = args.watch ? "--watch" : "--bind";
  for (const u of nodeURLs) if (!/^https?:\/\//.test(u)) throw new UsageError(`--node ${JSON.stringify(u)}: use the agent's URL, e.g. http://127.0.0.1:10250`);
  if ((args.bind || args.watch) && nodeURLs.length === 0) throw new UsageError(`${live} needs live nodes: --node URL`);
  if ((args.bind || args.watch) && !args["token-file"]) throw new UsageError(`${live} needs --token-file: the agents' POST /pods takes a bearer token`);
  if (args.bind && args.cluster) throw new UsageError("--bind cannot bind to the nodes of a --cluster dump; give only --node");
  if (args.watch && !args["pending-dir"]) throw new UsageError("--watch needs --pending-dir DIR");
  if (args["pending-dir"] && !args.watch) throw new UsageError("--pending-dir is for --watch");
  if (args.watch && (args.cluster || podPaths.length > 0)) throw new UsageError("--watch takes pods from --pending-dir only, and nodes from --node only");
  if (!args.watch && podPaths.length === 0 && !args.cluster)
    throw new UsageError("give pods to place (files, directories or -) and/or --cluster with pending pods");
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
    ["--token-file", args["token-file"] !== undefined],
    ["--seed", args.seed !== undefined],
  ];
  const given = others.filter(([, g]) => g).map(([f]) => f);
  if (given.length > 0)
    throw new UsageError(`--kubeconfig takes nodes and pods from the cluster and binds there: it cannot be combined with ${given.join(", ")}`);
  if (podPaths.length > 0)
    throw new UsageError(`--kubeconfig schedules the cluster's pending pods: create pods in the cluster instead of giving files (${podPaths.join(" ")})`);
  if (args["scheduler-name"] === "") throw new UsageError("--scheduler-name needs a name");
}

function readFileOrUsage(flag: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`--${flag} ${path}: ${errorMessage(e)}`);
  }
}

function loadConfig(path: string | undefined, log: Logger): SchedulerConfig {
  return path ? parseSchedulerConfig(readFileOrUsage("config", path), path, (m) => log.warn(m)) : defaultConfig();
}

async function schedule(args: ScheduleArgs, nodeURLs: readonly string[]): Promise<number> {
  const podPaths = args._ ?? [];
  checkUsage(args, nodeURLs, podPaths);
  let interval: number;
  try {
    interval = parseDuration(args["poll-interval"]);
  } catch (e) {
    throw new UsageError(`--poll-interval: ${errorMessage(e)}`);
  }
  if (interval <= 0) throw new UsageError("--poll-interval must be positive");
  let random: (() => number) | undefined;
  if (args.seed !== undefined) {
    const n = Number(args.seed);
    if (!Number.isInteger(n)) throw new UsageError(`--seed ${JSON.stringify(args.seed)}: use a whole number`);
    random = seededRandom(n);
  }
  const log = createLogger(args["log-format"] as LogFormat);
  const config = loadConfig(args.config, log);
  if (args.kubeconfig) return scheduleInCluster(args, profilesFor(config, !!args.config, args["scheduler-name"]), log);
  let token: string | undefined;
  if (args["token-file"]) {
    token = readFileOrUsage("token-file", args["token-file"]).trim();
    if (!token) throw new UsageError(`--token-file ${args["token-file"]} is empty`);
  }
  const tls =
    args["certificate-authority"] || args["insecure-skip-tls-verify"]
      ? {
          ...(args["certificate-authority"] ? { ca: readFileOrUsage("certificate-authority", args["certificate-authority"]) } : {}),
          rejectUnauthorized: !args["insecure-skip-tls-verify"],
        }
      : undefined;
  const agents = nodeURLs.map((u) => new AgentClient(u, token, undefined, tls));
  const format = args.output as OutputFormat;
  const explain = !!args.explain;
  const out = (text: string) => process.stdout.write(text);
  if (args.watch) {
    const ac = new AbortController();
    process.once("SIGINT", () => ac.abort());
    process.once("SIGTERM", () => ac.abort());
    await runWatch({
      config,
      agents,
      pendingDir: args["pending-dir"]!,
      pollIntervalMs: interval,
      explain,
      log,
      signal: ac.signal,
      onAttempt: (a) => out(formatAttempt(a, format, explain)),
    });
    return EXIT_OK;
  }
  return scheduleSnapshot({ args, podPaths, agents, config, random, log, out, format, explain });
}

/** --kubeconfig: runs until SIGINT/SIGTERM, printing each attempt as it happens. */
async function scheduleInCluster(args: ScheduleArgs, config: SchedulerConfig, log: Logger): Promise<number> {
  const { loadKubeClient } = await loadKube();
  const { InClusterScheduler, ApiServerUnreachable } = await loadInClusterScheduler();
  let client: Awaited<ReturnType<typeof loadKubeClient>>;
  try {
    client = await loadKubeClient(args.kubeconfig!, { context: args.context });
  } catch (e) {
    throw new UsageError(`--kubeconfig: ${errorMessage(e)}`);
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
  log.info("scheduling pods in the cluster", {
    schedulerNames: config.profiles.map((p) => p.schedulerName),
    server: client.server,
    nodes: sched.source.nodeNames().length,
  });
  await sched.run(ac.signal);
  return EXIT_OK;
}

/** One pass over the cluster as it is now (a dump and/or the agents), binding with --bind. */
async function scheduleSnapshot(o: {
  args: ScheduleArgs;
  podPaths: readonly string[];
  agents: AgentClient[];
  config: SchedulerConfig;
  random: (() => number) | undefined;
  log: Logger;
  out: (text: string) => void;
  format: OutputFormat;
  explain: boolean;
}): Promise<number> {
  const readStdin = () => readFileSync(0, "utf8");
  const result = await placePods({
    config: o.config,
    dump: collectObjects(o.args.cluster ? readPaths([o.args.cluster], readStdin) : []),
    inputs: collectObjects(readPaths(o.podPaths, readStdin)),
    agents: o.agents,
    bind: !!o.args.bind,
    explain: o.explain,
    random: o.random,
    log: o.log,
  });
  switch (result.kind) {
    case "unreachable":
      o.log.error("no answer from the agents", { agents: result.agents });
      return EXIT_FAILURE;
    case "nothing-pending":
      o.log.info("no pending pods to place");
      return EXIT_OK;
    case "placed":
      o.out(formatReports(result.reports, o.format, o.explain));
      return result.reports.every((r) => r.outcome === "Scheduled") ? EXIT_OK : EXIT_FAILURE;
  }
}
