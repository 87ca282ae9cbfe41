// `nodeagent probe run`: one liveness, readiness or startup probe against a running container, from
// its pod's spec or given on the command line, with the agent's own prober and threshold code.
// The flags are checked with src/prober's light modules (spec, plan, lookup); the runtime's client
// (gRPC and the CRI descriptor) and the prober's handlers (the gRPC health client among them) are
// imported only once they are checked, so --help and a usage error do not load them.
import { defineCommand } from "citty";
import type { Pod } from "kubernetes-types/core/v1";
import type { CriClient, ResolvedRuntime } from "../src/cri";
import {
  type AdHocProbe,
  type AttemptReport,
  type ContainerCommandRunner,
  type FoundContainer,
  PROBE_TYPES,
  type ProbeTiming,
  type ProbeType,
  type Prober,
  type TimingOverrides,
  fetchPodSpec,
  findRunningContainer,
  handlerName,
  loadProber,
  oneLine,
  parseAdHoc,
  planProbe,
  runProbeSession,
  verdictLine,
} from "../src/prober";
import { agentClientArgs, agentClientFrom, DEFAULT_AGENT_SERVER } from "./agent-client";
import { type LogFormat, type Logger, RealClock, createLogger, errorMessage, formatDuration, parseDuration } from "../src/util";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./exit";
import { runtimeArgs } from "./runtime-args";
import { loadCriClient, loadRuntimeResolver } from "../src/cri";

function positiveInt(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${flag} ${JSON.stringify(v)}: expected a whole number of at least 1`);
  return Number(v);
}

function positiveDuration(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  let ms: number;
  try {
    ms = parseDuration(v);
  } catch (e) {
    throw new UsageError(`--${flag}: ${errorMessage(e)}`);
  }
  if (ms <= 0) throw new UsageError(`--${flag} must be positive`);
  return ms;
}

/** The runner of an ad-hoc probe without --pod: there is no container to exec in. */
const noExec: ContainerCommandRunner = { execSync: () => Promise.reject(new Error("exec probes need --pod")) };

const WIDTHS = [12, 7, 8, 9, 8, 0];

function row(cols: string[]): string {
  return cols
    .map((c, i) => c.padEnd(WIDTHS[i]!))
    .join(" ")
    .trimEnd();
}

function attemptJson(
  r: AttemptReport,
  what: { type: ProbeType; handler: string; target: string; pod?: string; container?: FoundContainer },
): Record<string, unknown> {
  return {
    time: new Date(r.time).toISOString(),
    attempt: r.attempt,
    probe: what.type,
    handler: what.handler,
    target: what.target,
    ...(what.pod ? { pod: what.pod, container: what.container?.containerName, containerID: what.container?.containerId } : {}),
    result: r.result,
    ...(r.warning ? { warning: true } : {}),
    latencyMs: r.latencyMs,
    reason: r.output,
    run: r.run,
    settled: r.settled,
    verdict: r.verdict,
  };
}

const run = defineCommand({
  meta: {
    name: "run",
    description: `Run a liveness, readiness or startup probe against a running container, with Kubernetes semantics.

The container is found through the kubelet's CRI labels (--pod NAMESPACE/NAME, --container NAME).
The probe is the container's own (--probe TYPE) or given here:
  --http-get [http(s)://][HOST]:PORT[/PATH]   GET; success is a status from 200 to 399
  --tcp [HOST]:PORT                           a TCP connection opens
  --grpc [HOST]:PORT[/SERVICE]                grpc.health.v1.Health/Check answers SERVING
  --exec -- COMMAND [ARG…]                    exits 0 when run in the container (CRI ExecSync)
HOST defaults to the pod's IP (127.0.0.1 for a host-network pod); with a HOST, --pod is optional.
--probe with a probe given here only chooses whose semantics apply (default readiness).

The spec's probe is read from the agent (GET <agent>/pods/<namespace>/<name>): the runtime keeps
the kubelet's labels on a container but not the pod spec its probes are in. --period, --timeout and
the thresholds override the spec's (Kubernetes defaults otherwise: 10s, 1s, 1, 3); durations take
units (500ms, 2s).

Each attempt is printed with its result, latency and reason, and the verdict it leaves, computed by
the agent's own threshold code: a result counts only after --success-threshold successes or
--failure-threshold failures in a row; before that the verdict is the probe type's initial value
(readiness: failure, liveness: success, startup: unknown). An attempt that errors (the runtime
failed, a named port does not resolve) is retried 3 times and then ignored, as the kubelet does.
The first attempt waits out initialDelaySeconds from the container's start.

When it stops: after --count attempts; on Ctrl-C with --watch; otherwise as soon as the thresholds
settle, or after success + failure threshold attempts that never settle.

Output: a table, or with -o json one object per attempt:
  {"time":"…","attempt":1,"probe":"readiness","handler":"httpGet","target":"http://10.88.0.7:8080/",
   "pod":"default/web","container":"nginx","containerID":"…","result":"failure","latencyMs":2,
   "reason":"HTTP probe failed with statuscode: 503","run":1,"settled":false,"verdict":"failure"}

Examples:
  nodeagent probe run --pod default/web --probe readiness
  nodeagent probe run --pod default/web --container nginx --probe liveness --count 5 --period 1s
  nodeagent probe run --pod default/web --http-get :8080/healthz --watch
  nodeagent probe run --tcp 127.0.0.1:5432 --timeout 500ms
  nodeagent probe run --grpc 127.0.0.1:9090/db -o json | jq -c '{result, latencyMs}'
  nodeagent probe run --pod default/web --exec -- cat /tmp/healthy

Exit status: 0 when the verdict is success, 1 when it is failure (or unknown), 2 on a usage error or
when the pod, container or probe cannot be found.`,
  },
  args: {
    pod: { type: "string", description: "The pod: NAMESPACE/NAME (or NAME in namespace default)" },
    container: { type: "string", description: "The container (optional when the pod runs one)" },
    probe: { type: "enum", options: [...PROBE_TYPES], description: "liveness | readiness | startup: the spec's probe, or the semantics of one given here" },
    "http-get": { type: "string", description: "[http(s)://][HOST]:PORT[/PATH]" },
    tcp: { type: "string", description: "[HOST]:PORT" },
    grpc: { type: "string", description: "[HOST]:PORT[/SERVICE]" },
    exec: { type: "boolean", description: "The command after -- runs in the container" },
    period: { type: "string", description: "Time between attempts (default: the spec's periodSeconds, else 10s)" },
    timeout: { type: "string", description: "Timeout of one attempt (default: the spec's timeoutSeconds, else 1s)" },
    "success-threshold": { type: "string", description: "Successes in a row for a success verdict (default: the spec's, else 1)" },
    "failure-threshold": { type: "string", description: "Failures in a row for a failure verdict (default: the spec's, else 3)" },
    count: { type: "string", description: "Make exactly N attempts" },
    watch: { type: "boolean", description: "Probe until Ctrl-C" },
    output: { type: "enum", alias: "o", options: ["table", "json"], default: "table", description: "table | json" },
    agent: { type: "string", default: DEFAULT_AGENT_SERVER, description: "The agent's API, where --probe reads the pod spec" },
    "token-file": agentClientArgs["token-file"],
    "certificate-authority": agentClientArgs["certificate-authority"],
    "client-certificate": agentClientArgs["client-certificate"],
    "client-key": agentClientArgs["client-key"],
    "insecure-skip-tls-verify": agentClientArgs["insecure-skip-tls-verify"],
    ...runtimeArgs,
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "Log format on stderr: text | json" },
    command: { type: "positional", required: false, valueHint: "-- COMMAND", description: "With --exec: the command to run in the container, after --" },
  },
  async run({ args }) {
    // Every flag is checked before the runtime is touched (a managed containerd may be started).
    const req = parseRequest(args);
    const timeoutMs = positiveDuration("runtime-request-timeout", args["runtime-request-timeout"])!;
    const [{ CriClient }, { resolveRuntime }, { Prober }] = await Promise.all([loadCriClient(), loadRuntimeResolver(), loadProber()]);
    const log = createLogger(args["log-format"] as LogFormat);
    let runtime: ResolvedRuntime | undefined;
    let client: CriClient | undefined;
    try {
      let spec: Pod | undefined;
      let found: FoundContainer | undefined;
      if (req.pod) {
        if (!req.adHoc) {
          const agent = agentClientFrom({ ...args, server: args.agent });
          spec = await fetchPodSpec(agent, req.pod.namespace, req.pod.name);
        }
        runtime = await resolveRuntime({
          endpoint: args["runtime-endpoint"],
          rootDir: args["root-dir"],
          podInfraImage: args["pod-infra-container-image"],
          log,
        });
        client = new CriClient(runtime.endpoint, { timeoutMs });
        found = await findRunningContainer(client, { ...req.pod, container: args.container, uid: spec?.metadata?.uid });
      }
      const plan = planProbe({ type: req.type, adHoc: req.adHoc, spec, found, pod: req.pod, overrides: req.overrides });
      const what = {
        type: req.type,
        handler: handlerName(plan.probe)!,
        target: plan.target,
        pod: req.pod && `${req.pod.namespace}/${req.pod.name}`,
        container: found,
      };
      return await probeAndReport({
        args,
        log,
        prober: new Prober(client ?? noExec, new RealClock()),
        action: plan.action,
        timing: plan.timing,
        count: req.count,
        what,
        startedAt: req.adHoc ? undefined : found?.startedAt,
      });
    } finally {
      client?.close();
      await runtime?.release();
    }
  },
});

interface RunRequest {
  adHoc: AdHocProbe | undefined;
  type: ProbeType;
  pod: { namespace: string; name: string } | undefined;
  count: number | undefined;
  overrides: TimingOverrides;
}

/** Checks the flags against each other; every mistake is a UsageError (exit 2). */
function parseRequest(args: {
  _: string[];
  pod?: string;
  container?: string;
  probe?: string;
  "http-get"?: string;
  tcp?: string;
  grpc?: string;
  exec?: boolean;
  period?: string;
  timeout?: string;
  "success-threshold"?: string;
  "failure-threshold"?: string;
  count?: string;
  watch?: boolean;
}): RunRequest {
  const adHocFlags = (["http-get", "tcp", "grpc"] as const).filter((k) => args[k] !== undefined);
  const handlers = adHocFlags.length + (args.exec ? 1 : 0);
  if (handlers > 1) throw new UsageError("give one of --http-get, --tcp, --grpc, --exec");
  if (handlers === 0 && !args.probe)
    throw new UsageError("say which probe: --probe liveness|readiness|startup for the container's own, or --http-get, --tcp, --grpc or --exec");
  const command = args._.map(String);
  if (args.exec && command.length === 0) throw new UsageError("--exec needs the command after --, e.g. --exec -- cat /tmp/healthy");
  if (!args.exec && command.length > 0) throw new UsageError(`unexpected arguments: ${command.join(" ")}`);
  const count = positiveInt("count", args.count);
  if (count !== undefined && args.watch) throw new UsageError("--count and --watch exclude each other");
  const adHocFlag = adHocFlags[0];
  const adHoc: AdHocProbe | undefined = args.exec ? { probe: { exec: { command } } } : adHocFlag ? parseAdHoc(adHocFlag, args[adHocFlag]!) : undefined;
  let pod: RunRequest["pod"];
  if (args.pod !== undefined) {
    const parts = args.pod.split("/");
    if (parts.length > 2 || parts.some((p) => p === "")) throw new UsageError(`--pod ${JSON.stringify(args.pod)}: use NAMESPACE/NAME or NAME`);
    pod = parts.length === 2 ? { namespace: parts[0]!, name: parts[1]! } : { namespace: "default", name: parts[0]! };
  } else if (!adHoc || args.exec || !adHoc.host) {
    throw new UsageError(
      adHoc && !args.exec ? "without --pod, give the host to probe, e.g. --tcp 127.0.0.1:5432" : "--pod NAMESPACE/NAME is needed to find the container",
    );
  }
  if (args.container !== undefined && !pod) throw new UsageError("--container needs --pod");
  return {
    adHoc,
    type: (args.probe as ProbeType | undefined) ?? "readiness",
    pod,
    count,
    overrides: {
      periodMs: positiveDuration("period", args.period),
      timeoutMs: positiveDuration("timeout", args.timeout),
      successThreshold: positiveInt("success-threshold", args["success-threshold"]),
      failureThreshold: positiveInt("failure-threshold", args["failure-threshold"]),
    },
  };
}

async function probeAndReport(o: {
  args: { output: string; watch?: boolean };
  log: Logger;
  prober: Prober;
  action: Parameters<typeof runProbeSession>[0]["action"];
  timing: ProbeTiming;
  count: number | undefined;
  what: { type: ProbeType; handler: string; target: string; pod?: string; container?: FoundContainer };
  startedAt: number | undefined;
}): Promise<number> {
  const { timing, what } = o;
  const json = o.args.output === "json";
  const out = (line: string) => process.stdout.write(line + "\n");
  const ac = new AbortController();
  const stop = () => ac.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  o.log.info("probing", {
    probe: what.type,
    pod: what.pod,
    container: what.container?.containerName,
    id: what.container?.containerId.slice(0, 13),
    handler: what.handler,
    target: what.target,
    period: formatDuration(timing.periodMs),
    timeout: formatDuration(timing.timeoutMs),
    successThreshold: timing.successThreshold,
    failureThreshold: timing.failureThreshold,
    initialDelay: timing.initialDelayMs ? formatDuration(timing.initialDelayMs) : undefined,
  });
  if (!json) out(row(["TIME", "ATTEMPT", "RESULT", "LATENCY", "VERDICT", "REASON"]));
  let last: AttemptReport | undefined;
  let warned = false;
  const result = await runProbeSession({
    prober: o.prober,
    clock: new RealClock(),
    action: o.action,
    timing,
    type: what.type,
    startedAt: o.startedAt,
    count: o.count,
    watch: o.args.watch,
    signal: ac.signal,
    onAttempt: (r) => {
      last = r;
      warned ||= !!r.warning;
      if (json) return out(JSON.stringify(attemptJson(r, what)));
      const shown = r.warning ? "success*" : r.result;
      out(row([new Date(r.time).toISOString().slice(11, 23), String(r.attempt), shown, formatDuration(r.latencyMs), r.verdict, oneLine(r.output, 200)]));
    },
  }).finally(() => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  });
  if (!json) {
    if (warned) out("* a redirect to another host, not followed: a success with a warning, as the kubelet counts it");
    out(verdictLine(result.verdict, timing, last));
  }
  return result.verdict === "success" ? EXIT_OK : EXIT_FAILURE;
}

export const probeCommand = defineCommand({
  meta: { name: "probe", description: "Container probes on their own (see `nodeagent probe run --help`)" },
  subCommands: { run },
});
