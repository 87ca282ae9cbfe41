// `schedule` without --watch or --kubeconfig: one pass over the cluster as it is now — a dump
// (`kubectl get nodes,pods -A -o yaml`), the pods given, and/or live agents (their GET /node and
// GET /pods) — through scheduleOnce. What is bound and what is pending is decided as kube-scheduler
// decides it: a pod with spec.nodeName is bound and uses up its node, unless it has finished; a pod
// without one is pending (the dump's pending pods are scheduled too, as the cluster's scheduler would).
// A pod given to place that is already bound counts on its node, with a warning. The same
// namespace/name twice among the pending pods is an input error. Binding through agents gives each
// pod 5 attempts (each one a real request); a simulation, 10.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { isPodTerminal } from "../api";
import type { SchedulerConfig } from "./config/types";
import { scheduleOnce, type PodReport } from "./once";
import type { SchedulerLog } from "./scheduler";
import { AgentCluster, type AgentClient } from "./sources/agents";
import { InputError, preparePod, type ClusterObjects } from "./sources/input";

export interface PlaceOptions {
  config: SchedulerConfig;
  /** The cluster dump (--cluster): nodes, bound and pending pods, namespaces, classes, workloads. */
  dump: ClusterObjects;
  /** The objects given to place (files, directories, stdin): pods, and maybe nodes. */
  inputs: ClusterObjects;
  /** Live agents: their nodes and pods join the cluster. */
  agents: readonly AgentClient[];
  /** Push placed pods to their agents (and evict preemption victims there). */
  bind: boolean;
  explain: boolean;
  random?: () => number;
  log: SchedulerLog;
}

export type PlaceResult =
  | { kind: "placed"; reports: PodReport[] }
  /** Some agents did not answer: nothing was scheduled. */
  | { kind: "unreachable"; agents: string[] }
  | { kind: "nothing-pending" };

export async function placePods(o: PlaceOptions): Promise<PlaceResult> {
  const { dump, inputs, log } = o;
  for (const kinds of [dump.ignoredKinds, inputs.ignoredKinds]) if (kinds.size) log.info("ignoring objects of these kinds", { kinds: [...kinds] });
  const nodes = [...dump.nodes, ...inputs.nodes];
  const bound: Pod[] = [];
  const pending: Array<{ pod: Pod; origin: string }> = [];
  for (const { pod, origin } of dump.pods) {
    if (isPodTerminal(pod)) continue;
    if (pod.spec?.nodeName) bound.push(pod);
    else pending.push({ pod, origin });
  }
  for (const { pod, origin } of inputs.pods) {
    if (!pod.spec?.nodeName) {
      pending.push({ pod, origin });
      continue;
    }
    log.warn("pod is already bound; it counts on that node and is not scheduled", {
      origin,
      pod: `${pod.metadata?.namespace || "default"}/${pod.metadata?.name}`,
      node: pod.spec.nodeName,
    });
    bound.push(pod);
  }

  let cluster: AgentCluster | undefined;
  if (o.agents.length > 0) {
    const seen = { nodes: [] as Node[], pods: [] as Pod[] };
    const ignore = () => {};
    const c = new AgentCluster(
      o.agents,
      {
        onNodeAdd: (n: Node) => seen.nodes.push(n),
        onPodAdd: (p: Pod) => seen.pods.push(p),
        onNodeUpdate: ignore,
        onNodeDelete: ignore,
        onPodUpdate: ignore,
        onPodDelete: ignore,
      },
      log,
    );
    await c.sync();
    const answered = new Set(c.nodeNames().map((n) => c.agentFor(n)));
    const missing = o.agents.filter((a) => !answered.has(a));
    if (missing.length > 0) return { kind: "unreachable", agents: missing.map((a) => a.url) };
    nodes.push(...seen.nodes);
    bound.push(...seen.pods);
    cluster = c;
  }

  const classes = [...dump.priorityClasses, ...inputs.priorityClasses];
  const prepared = pending.map(({ pod, origin }) => ({ pod: preparePod(pod, origin, classes), origin }));
  const seenPods = new Map<string, string>();
  for (const { pod, origin } of prepared) {
    const key = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
    if (seenPods.has(key)) throw new InputError(`${origin}: pod ${key} is also given at ${seenPods.get(key)}`);
    seenPods.set(key, origin);
  }
  if (prepared.length === 0) return { kind: "nothing-pending" };

  const bindTo = o.bind ? cluster : undefined;
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
  return { kind: "placed", reports };
}
