// `schedule --watch`: a scheduler that runs until stopped. Nodes and bound pods are polled from the
// agents, pods come from the pending directory; each goes through the queue (backoff, unschedulable
// pods retried on cluster events, scheduling gates) and placed pods are bound to their agent.
import type { PriorityClass } from "kubernetes-types/scheduling/v1";
import { RealClock, type Clock } from "../util";
import type { SchedulerConfig } from "./config/types";
import type { AttemptResult } from "./framework/result";
import { Scheduler, type SchedulerLog } from "./scheduler";
import { AgentCluster, type AgentClient } from "./sources/agents";
import { PendingDir } from "./sources/pending-dir";

export interface WatchOptions {
  config: SchedulerConfig;
  agents: readonly AgentClient[];
  pendingDir: string;
  pollIntervalMs: number;
  explain?: boolean;
  priorityClasses?: readonly PriorityClass[];
  log: SchedulerLog;
  onAttempt: (r: AttemptResult) => void;
  signal: AbortSignal;
  clock?: Clock;
}

export async function runWatch(o: WatchOptions): Promise<void> {
  let pending: PendingDir | undefined;
  const scheduler = new Scheduler({
    config: o.config,
    clock: o.clock ?? new RealClock(),
    explain: o.explain,
    log: o.log,
    onAttempt: (r) => {
      o.onAttempt(r);
      if (r.outcome === "Scheduled") pending?.podBound(r.uid);
    },
  });
  const cluster = new AgentCluster(o.agents, scheduler, o.log);
  scheduler.setClient(cluster);
  await cluster.sync();
  const boundUIDs = () => new Set(scheduler.cache.pods().map((p) => p.uid));
  pending = new PendingDir(o.pendingDir, scheduler, o.log, o.priorityClasses ?? [], (pod) => boundUIDs().has(pod.metadata?.uid ?? ""));
  pending.start();
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    cluster
      .sync()
      .catch((err) => o.log.warn("polling the agents failed", { err }))
      .finally(() => (polling = false));
  }, o.pollIntervalMs);
  o.log.info("scheduling pods", { pendingDir: o.pendingDir, nodes: cluster.nodeNames() });
  try {
    await scheduler.run(o.signal);
  } finally {
    clearInterval(poll);
    pending.stop();
  }
}
