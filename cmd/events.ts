// `nodeagent events`: the node's recent events from the agent's API (GET /events), as `kubectl get
// events` shows them — what a standalone node did and why a pod is not running. A thin client: it
// loads neither the CRI client nor anything of the agent's. --watch asks again every second and
// prints what is new or repeated since (the agent keeps the last 1000 events; a repeat is the same
// event with its count raised, printed again).
import { defineCommand } from "citty";
import type { Event, EventList } from "kubernetes-types/core/v1";
import { AgentClientError } from "../src/client";
import { errorMessage } from "../src/util";
import { agentClientArgs, agentClientFrom } from "./agent-client";
import { EXIT_OK, UsageError } from "./exit";

/** How often --watch asks. */
const WATCH_PERIOD_MS = 1_000;

/** kubectl's HumanDuration, close enough for event ages: 45s, 5m30s, 2h10m, 3d. */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** The object column: kind/name in lower case, as kubectl prints it (pod/web, node/n1). */
function objectOf(e: Event): string {
  const o = e.involvedObject;
  return `${(o.kind ?? "").toLowerCase()}/${o.name ?? ""}`;
}

/** LAST SEEN as kubectl shows it: the age of the last one, with "(xN over AGE)" for a repeat. */
function lastSeen(e: Event, now: number): string {
  const last = Date.parse(e.lastTimestamp ?? e.firstTimestamp ?? "");
  const age = Number.isNaN(last) ? "<unknown>" : humanAge(now - last);
  if ((e.count ?? 1) <= 1) return age;
  const first = Date.parse(e.firstTimestamp ?? "");
  return `${age} (x${e.count} over ${Number.isNaN(first) ? "<unknown>" : humanAge(now - first)})`;
}

/** The table `kubectl get events` prints: NAMESPACE (with all namespaces), LAST SEEN, TYPE, REASON, OBJECT, MESSAGE. */
export function eventTable(events: readonly Event[], now: number, o: { namespaces: boolean; header: boolean }): string {
  const rows = events.map((e) => [
    ...(o.namespaces ? [e.metadata.namespace ?? ""] : []),
    lastSeen(e, now),
    e.type ?? "",
    e.reason ?? "",
    objectOf(e),
    (e.message ?? "").replace(/\s*\n\s*/g, " "),
  ]);
  const header = [...(o.namespaces ? ["NAMESPACE"] : []), "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"];
  const all = o.header ? [header, ...rows] : rows;
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all
    .map(
      (r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3)))
          .join("")
          .trimEnd() + "\n",
    )
    .join("");
}

/** The events a filter keeps: a namespace, and an object (NAME of a pod, or KIND/NAME as kubectl's --for). */
export function filterEvents(events: readonly Event[], f: { namespace?: string; forObject?: string }): Event[] {
  let kind: string | undefined;
  let name: string | undefined;
  if (f.forObject) {
    const parts = f.forObject.split("/");
    if (parts.length > 2 || parts.some((p) => !p))
      throw new UsageError(`--for ${JSON.stringify(f.forObject)}: use NAME (a pod) or KIND/NAME, e.g. pod/web or node/n1`);
    [kind, name] = parts.length === 2 ? [parts[0]!.toLowerCase(), parts[1]!] : ["pod", parts[0]!];
  }
  return events.filter((e) => {
    if (f.namespace !== undefined && e.metadata.namespace !== f.namespace) return false;
    if (kind && (e.involvedObject.kind ?? "").toLowerCase() !== kind) return false;
    if (name && e.involvedObject.name !== name) return false;
    return true;
  });
}

/** Sorted as they happened: by last time seen, then as the agent listed them. */
function byLastSeen(events: readonly Event[]): Event[] {
  return events
    .map((e, i) => ({ e, i, t: Date.parse(e.lastTimestamp ?? e.firstTimestamp ?? "") || 0 }))
    .sort((a, b) => a.t - b.t || a.i - b.i)
    .map((x) => x.e);
}

export const eventsCommand = defineCommand({
  meta: {
    name: "events",
    description: `Print the node's recent events, from the agent's API.

The agent records the kubelet's events — Pulling, Pulled, Created, Started, Killing, BackOff,
Unhealthy, FailedMount, Evicted, OutOfcpu… on pods; Starting, NodeReady, NodeHasSufficientMemory…
on the node — with their reasons and messages, aggregated and rate-limited as client-go does (a
repeat is one event whose count rises). It keeps the last 1000 in memory, in standalone mode as in a
cluster (where they are also posted to the API server: kubectl get events), and serves them on
GET <server>/events as a v1 EventList.

Output: a table like kubectl get events (LAST SEEN shows "(xN over AGE)" for repeats), or -o json
(the EventList; with --watch, one event a line each time it is new or repeated).

Examples:
  nodeagent events
  nodeagent events -n default --for web              the events of pod default/web
  nodeagent events --for node/$(hostname)            the node's own
  nodeagent events -A --watch                        every namespace, then what happens next
  nodeagent events -o json | jq -r '.items[] | select(.type=="Warning") | .message'
  nodeagent events --server https://node1:10250 --token-file /etc/nodeagent/token

Exit status: 0 when the events were printed (or on Ctrl-C with --watch), 1 when the agent refused
or could not be reached, 2 on a usage error.`,
  },
  args: {
    namespace: { type: "string", alias: "n", description: "Only events in this namespace (default: every namespace)" },
    "all-namespaces": { type: "boolean", alias: "A", description: "Every namespace, with a NAMESPACE column (the default without -n)" },
    for: { type: "string", valueHint: "KIND/NAME", description: "Only the events of this object: NAME (a pod) or KIND/NAME (pod/web, node/n1)" },
    watch: { type: "boolean", alias: "w", description: "After the list, print new and repeated events as they come, until Ctrl-C" },
    output: { type: "enum", alias: "o", options: ["table", "json"], default: "table", description: "table | json" },
    ...agentClientArgs,
  },
  async run({ args }) {
    if (args._.length > 0) throw new UsageError(`no arguments expected: got ${args._.map((a) => JSON.stringify(a)).join(", ")} (use --for to pick an object)`);
    if (args.namespace !== undefined && args["all-namespaces"]) throw new UsageError("-n and -A go separately");
    const filter = { ...(args.namespace !== undefined ? { namespace: args.namespace } : {}), ...(args.for ? { forObject: args.for } : {}) };
    filterEvents([], filter); // a bad --for is a usage error before anything is sent
    const client = agentClientFrom(args);
    const json = args.output === "json";
    const namespaces = args.namespace === undefined;
    const read = async (): Promise<Event[]> => {
      const res = await client.fetch("/events");
      if (!res.ok) throw await client.refusal(res);
      try {
        return byLastSeen(filterEvents(((await res.json()) as EventList).items ?? [], filter));
      } catch (e) {
        if (e instanceof UsageError) throw e;
        throw new AgentClientError(`the agent at ${client.server} answered /events with something that is not an EventList: ${errorMessage(e)}`);
      }
    };
    const first = await read();
    if (!args.watch) {
      if (json) process.stdout.write(JSON.stringify({ kind: "EventList", apiVersion: "v1", metadata: {}, items: first }, null, 2) + "\n");
      else if (first.length === 0) process.stderr.write(`No events${args.namespace !== undefined ? ` in namespace ${args.namespace}` : ""}.\n`);
      else process.stdout.write(eventTable(first, Date.now(), { namespaces, header: true }));
      return EXIT_OK;
    }
    // --watch: what is new since the last answer, by namespace/name and resourceVersion.
    const seen = new Map<string, string | undefined>();
    let header = !json;
    const print = (events: Event[]) => {
      const fresh = events.filter((e) => {
        const key = `${e.metadata.namespace}/${e.metadata.name}`;
        if (seen.has(key) && seen.get(key) === e.metadata.resourceVersion) return false;
        seen.set(key, e.metadata.resourceVersion);
        return true;
      });
      if (fresh.length === 0) return;
      if (json) for (const e of fresh) process.stdout.write(JSON.stringify(e) + "\n");
      else process.stdout.write(eventTable(fresh, Date.now(), { namespaces, header }));
      header = false;
    };
    const ac = new AbortController();
    const stop = () => ac.abort();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    try {
      print(first);
      while (!ac.signal.aborted) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, WATCH_PERIOD_MS);
          ac.signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
        });
        if (ac.signal.aborted) break;
        print(await read());
      }
      return EXIT_OK;
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
  },
});
