// `nodeagent logs`: a container's log from the agent's API (GET /containerLogs), by pod name — crictl
// wants container IDs. A thin client: it reads the pod (GET /pods/<ns>/<name>) only to pick the
// container when none is given, then streams the answer to stdout. It never talks to the runtime,
// so it loads neither the CRI client nor anything of the agent's (test/cmd/startup-graph.test.ts).
import { defineCommand } from "citty";
import { logsQuery, type PodLogOptions } from "../src/logs";
import { errorMessage, parseDuration } from "../src/util";
import { agentClientArgs, agentClientFrom, podArg, podContainer } from "./agent-client";
import { AgentClientError } from "../src/client";
import { EXIT_OK, UsageError } from "./exit";

/** A failure to report (exit 1): the agent refused, or could not be reached. */

function wholeNumber(flag: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min) throw new UsageError(`--${flag} ${JSON.stringify(v)}: expected a whole number of at least ${min}`);
  return Number(v);
}

/** The request's options from the flags; every mistake is a UsageError. */
export function logOptionsOf(args: {
  follow?: boolean;
  previous?: boolean;
  timestamps?: boolean;
  tail?: string;
  since?: string;
  "limit-bytes"?: string;
}): PodLogOptions {
  const o: PodLogOptions = {};
  if (args.follow) o.follow = true;
  if (args.previous) o.previous = true;
  if (args.timestamps) o.timestamps = true;
  // kubectl's --tail: -1 (the default) is every line.
  const tail = wholeNumber("tail", args.tail, -1);
  if (tail !== undefined && tail >= 0) o.tailLines = tail;
  const limit = wholeNumber("limit-bytes", args["limit-bytes"], 1);
  if (limit !== undefined) o.limitBytes = limit;
  if (args.since !== undefined) {
    let ms: number;
    try {
      ms = parseDuration(args.since);
    } catch (e) {
      throw new UsageError(`--since: ${errorMessage(e)}`);
    }
    if (ms <= 0) throw new UsageError("--since must be positive, e.g. 5m");
    // kubectl rounds to whole seconds; anything under one second asks for one.
    o.sinceSeconds = Math.max(1, Math.round(ms / 1000));
  }
  return o;
}

/** Writes a chunk to stdout, waiting while the pipe is full. */
function writeOut(chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(chunk, (err) => (err ? reject(err) : resolve())));
}

export const logsCommand = defineCommand({
  meta: {
    name: "logs",
    description: `Print a container's log, from the agent's API, by pod name.

Reads GET <server>/containerLogs/<namespace>/<pod>/<container> — the kubelet's endpoint, the one
\`kubectl logs\` reaches through the API server — with the same options and the same answers. The
container may be left out when the pod has one, or when its kubectl.kubernetes.io/default-container
annotation names one; with several, the error lists them. --previous reads the instance before the
last restart. With -f the output follows the log as it is written (across log rotation) until the
container exits or Ctrl-C.

Examples:
  nodeagent logs default/web
  nodeagent logs -f web -n kube-system -c nginx
  nodeagent logs --previous default/web
  nodeagent logs --tail 20 --timestamps default/web
  nodeagent logs --since 10m default/web | grep ERROR
  nodeagent logs --server https://node1:10250 --token-file /etc/nodeagent/token default/web

Exit status: 0 when the log was printed, 1 when the agent refused (no such pod or container, not
started yet, no previous instance, bad credentials) or could not be reached, 2 on a usage error
(including a pod with several containers and no -c).`,
  },
  args: {
    follow: { type: "boolean", alias: "f", description: "Follow the log as it is written, until the container exits" },
    container: { type: "string", alias: "c", description: "The container (optional when the pod has one, or names a default)" },
    namespace: { type: "string", alias: "n", description: "The pod's namespace, for POD without NAMESPACE/ (default default)" },
    previous: { type: "boolean", alias: "p", description: "The log of the previous instance (before the last restart)" },
    tail: { type: "string", valueHint: "N", description: "Only the last N lines (default -1: all)" },
    since: { type: "string", valueHint: "DURATION", description: "Only lines newer than this, e.g. 30s, 5m, 1h" },
    timestamps: { type: "boolean", description: "Prefix each line with the time it was written (RFC 3339, nanoseconds)" },
    "limit-bytes": { type: "string", valueHint: "N", description: "Stop after N bytes" },
    ...agentClientArgs,
    pod: { type: "positional", required: false, valueHint: "NAMESPACE/POD", description: "The pod: NAMESPACE/POD, or POD with -n" },
  },
  async run({ args }) {
    if (args._.length > 1) throw new UsageError(`one pod at a time: got ${args._.map((a) => JSON.stringify(a)).join(", ")}`);
    const pod = podArg(args.pod, args.namespace);
    const options = logOptionsOf(args);
    const client = agentClientFrom(args);
    const server = client.server;
    const ns = encodeURIComponent(pod.namespace);
    const name = encodeURIComponent(pod.name);
    const container = args.container ?? (await podContainer(client, pod));
    // Ctrl-C ends a follow: the request is aborted, the agent stops reading.
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      const res = await client.fetch(`/containerLogs/${ns}/${name}/${encodeURIComponent(container)}${logsQuery(options)}`, { signal: ac.signal });
      if (!res.ok) throw await client.refusal(res);
      if (!res.body) return EXIT_OK;
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return EXIT_OK;
        await writeOut(value);
      }
    } catch (e) {
      if (ac.signal.aborted) return EXIT_OK;
      if (e instanceof AgentClientError) throw e;
      throw new AgentClientError(`the log stream from ${server} broke off: ${errorMessage(e)}`);
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  },
});
