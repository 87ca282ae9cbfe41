// A one-shot run: the cluster (nodes, bound pods) and the pods to place go through the real queue
// and framework until nothing is left to try. Time is simulated: when only backing-off pods remain,
// the clock jumps to the end of their backoff instead of waiting for it, so the same retries happen
// as in a live scheduler (after preemption, after a binding error), in milliseconds.
import type { Namespace, Node, Pod } from "kubernetes-types/core/v1";
import { FakeClock } from "../util";
import { InMemoryCluster } from "./cluster";
import type { SchedulerConfig } from "./config/types";
import type { ClusterClient } from "./framework/interface";
import type { AttemptOutcome, AttemptResult } from "./framework/result";
import type { Workloads } from "./model/default-selector";
import { PodInfo } from "./model/pod-info";
import { Scheduler, type SchedulerLog } from "./scheduler";

export type FinalOutcome = AttemptOutcome | "Gated" | "Ignored";

export interface PodReport {
  namespace: string;
  name: string;
  uid: string;
  /** Where the pod was read from (file:line). */
  origin?: string;
  outcome: FinalOutcome;
  node?: string;
  /** The FailedScheduling message, or why the pod was not tried. */
  message: string;
  attempts: number;
  nominatedNode?: string;
  preempted?: string[];
  /** Every attempt, oldest first. */
  results: AttemptResult[];
}

export interface OnceOptions {
  config: SchedulerConfig;
  nodes: readonly Node[];
  /** Pods already bound to nodes (they use up their nodes). */
  boundPods: readonly Pod[];
  /** Pods to place, prepared (see sources/input.ts preparePod), in the order they arrive. */
  pendingPods: ReadonlyArray<{ pod: Pod; origin?: string }>;
  namespaces?: readonly Namespace[];
  workloads?: Workloads;
  explain?: boolean;
  random?: () => number;
  log?: SchedulerLog;
  /** Binds and evicts through live agents; in memory by default. */
  client?: (scheduler: Scheduler) => ClusterClient;
  /** A pod is tried at most this often (default 10). */
  maxAttempts?: number;
  /** Called after each attempt, as it happens. */
  onAttempt?: (r: AttemptResult) => void;
}

/**
 * Schedules until no pod is ready to try: pops and schedules, lets bindings finish, and when only
 * backing-off pods remain moves the simulated clock to the end of their backoff.
 */
export async function runUntilIdle(scheduler: Scheduler, clock: FakeClock): Promise<void> {
  let sinceYield = 0;
  for (;;) {
    if (scheduler.scheduleNext()) {
      // Let bindings finish now and then, so their promises do not pile up.
      if (++sinceYield >= 256) {
        sinceYield = 0;
        await scheduler.settle();
      }
      continue;
    }
    await scheduler.settle();
    if (scheduler.scheduleNext()) continue;
    const expiry = scheduler.queue.nextBackoffExpiry();
    if (expiry === undefined) return;
    await clock.advance(Math.max(0, expiry - clock.now()) + 1000);
    scheduler.queue.flushBackoffQCompleted();
  }
}

export async function scheduleOnce(o: OnceOptions): Promise<{ reports: PodReport[]; scheduler: Scheduler }> {
  const clock = new FakeClock(Date.now());
  const results = new Map<string, AttemptResult[]>();
  const scheduler = new Scheduler({
    config: o.config,
    clock,
    explain: o.explain,
    random: o.random,
    log: o.log,
    maxAttempts: o.maxAttempts ?? 10,
    onAttempt: (r) => {
      const list = results.get(r.uid) ?? [];
      list.push(r);
      results.set(r.uid, list);
      o.onAttempt?.(r);
    },
  });
  scheduler.setClient(o.client ? o.client(scheduler) : new InMemoryCluster(scheduler));
  for (const ns of o.namespaces ?? []) {
    const name = ns.metadata?.name;
    if (name) scheduler.cache.namespaces.set(name, { "kubernetes.io/metadata.name": name, ...ns.metadata?.labels });
  }
  if (o.workloads) scheduler.cache.workloads = o.workloads;
  for (const n of o.nodes) scheduler.onNodeAdd(n);
  for (const p of o.boundPods) scheduler.onPodAdd(p);
  for (const { pod } of o.pendingPods) scheduler.onPodAdd(pod);

  await runUntilIdle(scheduler, clock);

  const reports = o.pendingPods.map(({ pod, origin }): PodReport => {
    const uid = pod.metadata?.uid ?? "";
    const attempts = results.get(uid) ?? [];
    const base = { namespace: pod.metadata?.namespace || "default", name: pod.metadata?.name ?? "", uid, ...(origin ? { origin } : {}) };
    const last = attempts[attempts.length - 1];
    if (!last) {
      const fwk = scheduler.frameworkFor(pod);
      if (!fwk) {
        const names = [...scheduler.profiles.keys()].join(", ");
        return {
          ...base,
          outcome: "Ignored",
          message: `no profile for schedulerName ${JSON.stringify(pod.spec?.schedulerName)} (profiles: ${names})`,
          attempts: 0,
          results: [],
        };
      }
      const gate = fwk.runPreEnqueuePlugins(new PodInfo(pod));
      return { ...base, outcome: "Gated", message: gate?.message() ?? "not attempted", attempts: 0, results: [] };
    }
    const preempted = [...new Set(attempts.flatMap((a) => a.preempted ?? []))];
    return {
      ...base,
      outcome: last.outcome,
      ...(last.node ? { node: last.node } : {}),
      message: last.message,
      attempts: attempts.length,
      ...(last.nominatedNode ? { nominatedNode: last.nominatedNode } : {}),
      ...(preempted.length ? { preempted } : {}),
      results: attempts,
    };
  });
  return { reports, scheduler };
}
