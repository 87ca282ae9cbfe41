// `nodeagent pleg watch`: the PLEG on its own against a runtime, printing every pod lifecycle event.
import { defineCommand } from "citty";
import type { Pod } from "kubernetes-types/core/v1";
import type { PodWaitChange } from "../src/api";
import type { AgentClient } from "../src/client";
import type { ModeChange, PlegModeSetting, PodLifecycleEvent } from "../src/pleg";
import { type LogFormat, RealClock, createLogger, errorMessage, parseDuration } from "../src/util";
import { EXIT_FAILURE, EXIT_OK, UsageError } from "./exit";
import { agentClientArgs, agentClientFrom } from "./agent-client";
import { runtimeArgs } from "./runtime-args";
import { loadPodWaits } from "../src/api";
import { loadCriClient, loadRuntimeResolver } from "../src/cri";
import { loadPleg } from "../src/pleg";

const watch = defineCommand({
  meta: {
    name: "watch",
    description: `Print pod lifecycle events from the container runtime as the agent's PLEG sees them.

Modes: generic relists every --relist-period; evented consumes the runtime's GetContainerEvents
stream (containerd 1.7+) and relists only the pod an event names, with a full relist every 5 min;
auto (default) tries evented and falls back to generic, for good, when the runtime does not
implement the stream or it fails 5 times in a row. Every mode change is printed.

With --agent, the agent's API is asked too, every --relist-period: a pod that waits for something
the runtime never sees (a volume that cannot be made: FailedMount; env from a missing secret:
CreateContainerConfigError; an image pull in back-off) is printed as a Waiting event with the
agent's reason and message, and as WaitEnded once it no longer waits.

Output: table, or json (one object a line):
  {"time":"…","mode":"evented","type":"ContainerDied","pod":{"namespace":"default","name":"web","uid":"…"},
   "container":{"name":"nginx","id":"…"},"exitCode":3,"reason":"Error"}
  {"time":"…","type":"ModeChanged","mode":"generic","previousMode":null,"reason":"…"}
  {"time":"…","type":"Waiting","pod":{…},"reason":"FailedMount","message":"Unable to attach or mount volumes: …"}

Examples:
  nodeagent pleg watch
  nodeagent pleg watch --runtime-endpoint unix:///run/containerd/containerd.sock --mode generic
  nodeagent pleg watch -o json --namespace kube-system | jq -c 'select(.type=="ContainerDied")'
  nodeagent pleg watch --pod default/web --relist-period 500ms
  nodeagent pleg watch --agent https://127.0.0.1:10250 --token-file /etc/nodeagent/token

Exit status: 0 on Ctrl-C or SIGTERM, 1 when the runtime cannot be used, 2 on a usage error.`,
  },
  args: {
    ...runtimeArgs,
    mode: { type: "enum", options: ["auto", "generic", "evented"], default: "auto", description: "auto | generic | evented" },
    "relist-period": { type: "string", default: "1s", description: "Full relist period in generic mode (Go duration)" },
    namespace: { type: "string", description: "Only events of pods in this namespace" },
    pod: { type: "string", description: "Only events of this pod: NAME or NAMESPACE/NAME" },
    output: { type: "enum", alias: "o", options: ["table", "json"], default: "table", description: "table | json" },
    "log-format": { type: "enum", options: ["text", "json"], default: "text", description: "Log format on stderr: text | json" },
    agent: { type: "string", valueHint: "url", description: "Also print why pods wait, from this agent's API (e.g. https://127.0.0.1:10250)" },
    "token-file": agentClientArgs["token-file"],
    "certificate-authority": agentClientArgs["certificate-authority"],
    "client-certificate": agentClientArgs["client-certificate"],
    "client-key": agentClientArgs["client-key"],
    "insecure-skip-tls-verify": agentClientArgs["insecure-skip-tls-verify"],
  },
  async run({ args }) {
    // Every value is checked before the runtime is touched (a managed containerd may be started).
    const relistPeriodMs = durationFlag("relist-period", args["relist-period"]);
    const timeoutMs = durationFlag("runtime-request-timeout", args["runtime-request-timeout"]);
    const podFilter = parsePodFilter(args.pod, args.namespace);
    const agent = args.agent ? agentClientFrom({ ...args, server: args.agent }) : undefined;
    const json = args.output === "json";
    // The runtime's client (gRPC, the CRI descriptor) and the PLEG load only once the flags are good.
    const [{ CriClient }, { resolveRuntime }, { EventedPlegUnavailableError, Pleg }] = await Promise.all([loadCriClient(), loadRuntimeResolver(), loadPleg()]);
    const log = createLogger(args["log-format"] as LogFormat);

    const runtime = await resolveRuntime({
      endpoint: args["runtime-endpoint"],
      rootDir: args["root-dir"],
      podInfraImage: args["pod-infra-container-image"],
      log,
    });
    const client = new CriClient(runtime.endpoint, { timeoutMs });
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      try {
        const v = await client.version();
        log.info("using the runtime", { runtime: v.runtimeName, version: v.runtimeVersion, cri: v.runtimeApiVersion, endpoint: runtime.endpoint });
      } catch (e) {
        log.error("cannot reach the runtime", { endpoint: runtime.endpoint, err: e });
        return EXIT_FAILURE;
      }
      const out = (line: string) => process.stdout.write(line + "\n");
      if (!json)
        out(
          ["TIME", "MODE", "TYPE", "POD", "CONTAINER", "EXIT", "REASON"]
            .map((h, i) => h.padEnd(WIDTHS[i]!))
            .join(" ")
            .trimEnd(),
        );
      const pleg = new Pleg(client, new RealClock(), {
        mode: args.mode as PlegModeSetting,
        relistPeriodMs,
        onModeChange: (m) => {
          out(json ? JSON.stringify(modeJson(m)) : modeRow(m));
          if (m.mode === "evented") {
            // containerd 1.7 reads every subscriber's events off one channel (containerd#7318).
            log.warn(
              "the runtime hands each container event to only one GetContainerEvents stream: while this watch streams, " +
                "an agent or kubelet with an evented PLEG on the same runtime misses the events it gets; use --mode generic beside one",
            );
          }
        },
        onError: (what, err) => log.warn("PLEG: an operation failed", { op: what, err }),
      });
      const printer = (async () => {
        for await (const e of pleg.events) if (podFilter(e)) out(json ? JSON.stringify(eventJson(e)) : eventRow(e));
      })();
      const waits = agent
        ? watchWaits(
            agent,
            relistPeriodMs,
            ac.signal,
            (c) => {
              if (podFilter(c.wait)) out(json ? JSON.stringify(waitJson(c)) : waitRow(c));
            },
            (err) => log.warn("cannot read the agent's pods", { err }),
          )
        : undefined;
      try {
        await pleg.run(ac.signal);
      } catch (e) {
        if (!(e instanceof EventedPlegUnavailableError)) throw e;
        log.error(e.message);
        return EXIT_FAILURE;
      } finally {
        await printer;
        await waits;
      }
      return EXIT_OK;
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      client.close();
      await runtime.release();
    }
  },
});

function durationFlag(flag: string, text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    throw new UsageError(`--${flag}: ${errorMessage(e)}`);
  }
  if (ms <= 0) throw new UsageError(`--${flag} must be positive`);
  return ms;
}

export const plegCommand = defineCommand({
  meta: { name: "pleg", description: "The pod lifecycle event generator on its own (see `nodeagent pleg watch --help`)" },
  subCommands: { watch },
});

/**
 * Asks the agent's GET /pods every period and reports each wait that begins, changes or ends
 * (PodWaitTracker); a failing request is reported once until one succeeds again.
 */
async function watchWaits(
  client: AgentClient,
  periodMs: number,
  signal: AbortSignal,
  emit: (c: PodWaitChange) => void,
  failed: (err: unknown) => void,
): Promise<void> {
  const { PodWaitTracker } = await loadPodWaits();
  const tracker = new PodWaitTracker();
  let failing = false;
  while (!signal.aborted) {
    try {
      const res = await client.fetch("/pods", { signal });
      if (!res.ok) throw await client.refusal(res);
      const list = (await res.json()) as { items?: Pod[] };
      for (const c of tracker.update(list.items ?? [])) emit(c);
      failing = false;
    } catch (e) {
      if (signal.aborted) break;
      if (!failing) failed(e);
      failing = true;
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, periodMs);
      signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}

function waitJson(c: PodWaitChange): Record<string, unknown> {
  const w = c.wait;
  return {
    time: new Date().toISOString(),
    type: c.type,
    pod: w.pod,
    ...(w.container ? { container: { name: w.container } } : {}),
    reason: w.reason,
    ...(w.message ? { message: w.message } : {}),
  };
}

function waitRow(c: PodWaitChange): string {
  const w = c.wait;
  const cols = [
    clockTime(Date.now()),
    "agent",
    c.type,
    `${w.pod.namespace}/${w.pod.name}`,
    w.container ?? "",
    "",
    `${w.reason}${w.message ? `: ${w.message}` : ""}`,
  ];
  return cols
    .map((col, i) => col.padEnd(WIDTHS[i]!))
    .join(" ")
    .trimEnd();
}

function parsePodFilter(pod: string | undefined, namespace: string | undefined): (e: { pod: { namespace: string; name: string } }) => boolean {
  let ns = namespace;
  let name: string | undefined;
  if (pod) {
    const parts = pod.split("/");
    if (parts.length > 2 || parts.some((p) => p === "")) throw new UsageError(`--pod ${JSON.stringify(pod)}: use NAME or NAMESPACE/NAME`);
    if (parts.length === 2) {
      if (ns !== undefined && ns !== parts[0]) throw new UsageError(`--pod ${pod} contradicts --namespace ${ns}`);
      ns = parts[0];
    }
    name = parts.at(-1);
  }
  return (e) => (ns === undefined || e.pod.namespace === ns) && (name === undefined || e.pod.name === name);
}

export function eventJson(e: PodLifecycleEvent): Record<string, unknown> {
  const o: Record<string, unknown> = {
    time: new Date(e.time).toISOString(),
    mode: e.mode,
    type: e.type,
    pod: { namespace: e.pod.namespace, name: e.pod.name, uid: e.pod.uid },
  };
  if (e.containerId) o.container = { name: e.containerName ?? "", id: e.containerId, ...(e.sandbox ? { sandbox: true } : {}) };
  if (e.exitCode !== undefined) o.exitCode = e.exitCode;
  if (e.reason) o.reason = e.reason;
  return o;
}

function modeJson(m: ModeChange): Record<string, unknown> {
  return { time: new Date(m.time).toISOString(), type: "ModeChanged", mode: m.mode, previousMode: m.previous ?? null, reason: m.reason };
}

const WIDTHS = [12, 8, 17, 40, 30, 5, 0];
const clockTime = (t: number) => new Date(t).toISOString().slice(11, 23);

function eventRow(e: PodLifecycleEvent): string {
  const container = e.containerId ? `${e.sandbox ? "(sandbox)" : e.containerName}/${e.containerId.slice(0, 12)}` : "";
  const cols = [clockTime(e.time), e.mode, e.type, `${e.pod.namespace}/${e.pod.name}`, container, e.exitCode?.toString() ?? "", e.reason ?? ""];
  return cols
    .map((c, i) => c.padEnd(WIDTHS[i]!))
    .join(" ")
    .trimEnd();
}

function modeRow(m: ModeChange): string {
  return `${clockTime(m.time).padEnd(WIDTHS[0]!)} ${m.mode.padEnd(WIDTHS[1]!)} ${"ModeChanged".padEnd(WIDTHS[2]!)} ${m.reason}`;
}
