// EvictionManager: the kubelet's eviction manager (k/k@1.24.1 pkg/kubelet/eviction/eviction_manager.go
// Start, synchronize, reclaimNodeLevelResources, evictPod, waitForPodsCleanup). One loop, beside the
// sync loop (stats and volume walks must never hold up pod syncs):
//
//   every monitoring period (10 s; --eviction-monitoring-period):
//     summary ← the stats provider (the one /stats/summary serves)       [no thresholds: skipped]
//     observations ← signals of the summary (signals.ts)
//     met ← thresholds whose signal is below them, ∪ those met before whose minimum reclaim is not
//           reached yet
//     firstObservedAt[t] kept while t stays met; conditions of met thresholds stamped "now";
//     a condition is reported while stamped less than the pressure transition period ago (5 m)
//     acting ← met thresholds whose grace period has passed (0 for hard ones)
//     local storage: emptyDirs over their sizeLimit are evicted whatever the pressure
//                    (local-storage.ts); if any was, this cycle ends there
//     nothing acting → done; else the threshold to reclaim: memory first, then the others in order
//     disk signals: node-level reclaim first (node-reclaim.ts); if every threshold is then clear
//                   (minimum reclaim included), no pod is evicted
//     rank the active pods for the signal (ranking.ts) and evict the first one that can be:
//     ONE pod per cycle, phase Failed, reason Evicted, the kubelet's message, grace 0 for a hard
//     threshold, min(spec, --eviction-max-pod-grace-period) for a soft one; critical pods (src/api
//     isCriticalPod: in a cluster static and mirror pods; a priority ≥ system-cluster-critical's,
//     the built-in classes resolved by name) are never evicted
//   after an eviction, instead of sleeping: wait (poll 1 s, at most 30 s) for the evicted pods to be
//   cleaned up, then the next cycle at once.
//
// The conditions feed the Node (MemoryPressure, DiskPressure, PIDPressure) and the eviction admit
// handler (eviction-admit-handler.ts). As the kubelet, it never taints the node: in a cluster the
// node lifecycle controller turns the conditions into node.kubernetes.io/*-pressure taints.
//
// Events: EvictionThresholdMet on the Node here; a pod's Evicted is recorded where every eviction
// goes through (the agent's evictPod). Departures: no memcg threshold notifier (the kubelet's kernel-notified early cycle), the loop polls
// only; stats are read fresh each cycle, so the kubelet's "only thresholds whose stats were updated"
// filter has nothing to drop; with no threshold at all (--eviction-hard= and no soft ones) no stats
// are collected, only the local-storage check runs (the kubelet still collects them).
import type { Pod } from "kubernetes-types/core/v1";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, isCriticalPod, podKey } from "../api";
import type { NodeEventRecorder } from "../events";
import type { Summary } from "../stats";
import type { Clock, Logger } from "../util";
import { EVICTED_REASON, EVICTION_MONITORING_PERIOD_MS, type EvictionTarget } from "./local-storage";
import { NO_NODE_RECLAIM, nodeReclaimSteps, type NodeReclaim } from "./node-reclaim";
import { evictionMessage, rankFuncFor } from "./ranking";
import {
  makeSignalObservations,
  PRESSURE_CONDITIONS,
  SIGNAL_CONDITION,
  SIGNAL_RESOURCE,
  type Observations,
  type PressureCondition,
  type Signal,
} from "./signals";
import {
  DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
  isHard,
  mergeThresholds,
  nodeConditions,
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  type Threshold,
} from "./thresholds";

/** podCleanupTimeout and podCleanupPollFreq. */
export const POD_CLEANUP_TIMEOUT_MS = 30_000;
export const POD_CLEANUP_POLL_MS = 1_000;

/** The stats the manager reads: the node's SummaryProvider, a fake in tests. */
export interface SummarySource {
  get(onlyCpuAndMemory?: boolean): Promise<Summary>;
}

/** The part of the cycle that runs whatever the pressure: the emptyDir sizeLimit check. */
export interface LocalStorageCheck {
  synchronize(): Promise<Pod[]>;
}

export interface EvictionManagerOptions {
  thresholds: readonly Threshold[];
  /** --eviction-pressure-transition-period, 5 m by default. */
  pressureTransitionPeriodMs?: number;
  /** --eviction-max-pod-grace-period (0 by default): soft evictions' grace cap; negative: the pod's own. */
  maxPodGracePeriodSeconds?: number;
  summary: SummarySource;
  target: EvictionTarget;
  localStorage?: LocalStorageCheck;
  /** The image and container GC's entry points; nothing by default. */
  reclaim?: NodeReclaim;
  /** Whether the runtime's images live on another filesystem than the root dir (asked until it answers). */
  dedicatedImageFs?: () => Promise<boolean>;
  clock: Clock;
  log: Logger;
  monitoringPeriodMs?: number;
  /** The node's events (EvictionThresholdMet); none by default. A pod's Evicted event is its evictor's (the agent's evictPod). */
  events?: NodeEventRecorder;
  /** The node belongs to a cluster (--kubeconfig): its static and mirror pods are critical (src/api isCriticalPod). */
  cluster?: boolean;
}

/** What the first pod's eviction would say, and the one that went (for tests and logs). */
export interface EvictionDecision {
  signal: Signal;
  pod: Pod;
  message: string;
  gracePeriodSeconds: number;
}

export class EvictionManager {
  readonly monitoringPeriodMs: number;
  private readonly transitionMs: number;
  private conditions = new Set<PressureCondition>();
  private firstObservedAt = new Map<Threshold, number>();
  private conditionsLastObservedAt = new Map<PressureCondition, number>();
  private met: Threshold[] = [];
  private dedicatedImageFs: boolean | undefined;
  /** A cycle has measured the node (or there is nothing to measure): pressure() is an observation. */
  private observed = false;
  /** The last eviction made, for tests and logs. */
  lastEviction: EvictionDecision | undefined;

  constructor(private readonly o: EvictionManagerOptions) {
    this.monitoringPeriodMs = o.monitoringPeriodMs ?? EVICTION_MONITORING_PERIOD_MS;
    this.transitionMs = o.pressureTransitionPeriodMs ?? DEFAULT_PRESSURE_TRANSITION_PERIOD_MS;
  }

  /** The pressure conditions the node reports now (in MemoryPressure, DiskPressure, PIDPressure order). */
  pressure(): ReadonlySet<PressureCondition> {
    return new Set(PRESSURE_CONDITIONS.filter((c) => this.conditions.has(c)));
  }

  /**
   * The conditions as observed, or undefined until a cycle has measured the node (just after a start:
   * "no pressure" then means "not known yet"). With no threshold there is nothing to measure and never
   * any pressure. The agent starts an evicted file, URL or pushed pod again only on an observation.
   */
  observedPressure(): ReadonlySet<PressureCondition> | undefined {
    if (this.o.thresholds.length === 0) return new Set();
    return this.observed ? this.pressure() : undefined;
  }

  /** Runs a cycle every monitoring period (the first at once) until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let evicted: Pod[] = [];
      try {
        evicted = await this.synchronize();
      } catch (err) {
        this.o.log.error("eviction manager: synchronize failed", { err });
      }
      try {
        if (evicted.length > 0) await this.waitForPodsCleanup(evicted, signal);
        else await this.o.clock.sleep(this.monitoringPeriodMs, signal);
      } catch {
        return;
      }
    }
  }

  /** One cycle (see the header); the pods it evicted. */
  async synchronize(): Promise<Pod[]> {
    const { o } = this;
    if (o.thresholds.length === 0) return (await o.localStorage?.synchronize()) ?? [];
    if (this.dedicatedImageFs === undefined && o.dedicatedImageFs) {
      this.dedicatedImageFs = await o.dedicatedImageFs().catch((err) => {
        o.log.warn("eviction manager: cannot tell whether images have a filesystem of their own", { err });
        return undefined;
      });
    }
    let summary: Summary;
    try {
      summary = await o.summary.get();
    } catch (err) {
      // As the kubelet: no stats, no decision this cycle; the conditions stay as they were.
      o.log.error("eviction manager: failed to get summary stats", { err });
      return [];
    }
    const { observations, podStats } = makeSignalObservations(summary);
    let met = thresholdsMet(o.thresholds, observations, false);
    if (this.met.length > 0) met = mergeThresholds(met, thresholdsMet(this.met, observations, true));
    const now = o.clock.now();
    const firstObservedAt = thresholdsFirstObservedAt(met, this.firstObservedAt, now);
    const lastObservedAt = nodeConditionsLastObservedAt(nodeConditions(met), this.conditionsLastObservedAt, now);
    const conditions = nodeConditionsObservedSince(lastObservedAt, this.transitionMs, now);
    const acting = thresholdsMetGracePeriod(firstObservedAt, now);
    this.logConditionChanges(conditions, observations);
    this.conditions = conditions;
    this.firstObservedAt = firstObservedAt;
    this.conditionsLastObservedAt = lastObservedAt;
    this.met = acting;
    this.observed = true;

    const local = (await o.localStorage?.synchronize()) ?? [];
    if (local.length > 0) return local;
    if (acting.length === 0) return [];

    // byEvictionPriority: memory signals first, then the others in the order they were given.
    const toReclaim = acting.find((t) => SIGNAL_RESOURCE[t.signal] === "memory") ?? acting[0]!;
    const resource = SIGNAL_RESOURCE[toReclaim.signal];
    o.log.warn("eviction manager: threshold met, attempting to reclaim", {
      signal: toReclaim.signal,
      observed: describe(observations, toReclaim.signal),
      resource,
    });
    o.events?.("Warning", "EvictionThresholdMet", `Attempting to reclaim ${resource}`);
    if (await this.reclaimNodeLevelResources(toReclaim.signal)) {
      o.log.info("eviction manager: able to reduce resource pressure without evicting pods", { resource });
      return [];
    }
    const pods = o.target.activePods();
    if (pods.length === 0) {
      o.log.error("eviction manager: eviction thresholds have been met, but no pods are active to evict");
      return [];
    }
    rankFuncFor(toReclaim.signal, this.dedicatedImageFs ?? false)(pods, podStats);
    o.log.info("eviction manager: pods ranked for eviction", { pods: pods.map(podKey) });
    for (const pod of pods) {
      if (isCriticalPod(pod, { cluster: o.cluster ?? false })) {
        o.log.error("eviction manager: cannot evict a critical pod", { pod: podKey(pod) });
        continue;
      }
      const message = evictionMessage(resource, pod, podStats);
      const gracePeriodSeconds = isHard(toReclaim) ? 0 : this.softGracePeriod(pod);
      if (o.target.evictPod(pod, { reason: EVICTED_REASON, message, condition: SIGNAL_CONDITION[toReclaim.signal] }, gracePeriodSeconds)) {
        this.lastEviction = { signal: toReclaim.signal, pod, message, gracePeriodSeconds };
        return [pod];
      }
    }
    o.log.error("eviction manager: unable to evict any pods from the node");
    return [];
  }

  /** A soft eviction's grace: the pod's own, at most --eviction-max-pod-grace-period (unless negative). */
  private softGracePeriod(pod: Pod): number {
    const own = pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
    const max = this.o.maxPodGracePeriodSeconds ?? 0;
    return max < 0 ? own : Math.min(own, max);
  }

  /**
   * reclaimNodeLevelResources: the GC steps for the signal, then fresh stats; true when no threshold
   * is met any more, minimum reclaim included.
   */
  private async reclaimNodeLevelResources(signal: Signal): Promise<boolean> {
    const steps = nodeReclaimSteps(signal, this.o.reclaim ?? NO_NODE_RECLAIM, this.dedicatedImageFs ?? false);
    if (steps.length === 0) return false;
    for (const step of steps) {
      await step().catch((err) =>
        this.o.log.warn("eviction manager: unexpected error when attempting to reduce resource pressure", { resource: SIGNAL_RESOURCE[signal], err }),
      );
    }
    let summary: Summary;
    try {
      summary = await this.o.summary.get();
    } catch (err) {
      this.o.log.error("eviction manager: failed to get summary stats after resource reclaim", { err });
      return false;
    }
    return thresholdsMet(this.o.thresholds, makeSignalObservations(summary).observations, true).length === 0;
  }

  /** waitForPodsCleanup: every poll period until all are cleaned up or the timeout passes. */
  private async waitForPodsCleanup(pods: Pod[], signal: AbortSignal): Promise<void> {
    const { clock, target, log } = this.o;
    const deadline = clock.now() + POD_CLEANUP_TIMEOUT_MS;
    while (clock.now() < deadline) {
      await clock.sleep(POD_CLEANUP_POLL_MS, signal);
      if (pods.every((p) => target.podCleanedUp?.(p) ?? true)) {
        log.info("eviction manager: pods successfully cleaned up", { pods: pods.map(podKey) });
        return;
      }
    }
    log.info("eviction manager: timed out waiting for pods to be cleaned up", { pods: pods.map(podKey) });
  }

  private logConditionChanges(next: ReadonlySet<PressureCondition>, observations: Observations): void {
    for (const c of PRESSURE_CONDITIONS) {
      if (next.has(c) === this.conditions.has(c)) continue;
      const signals = Object.fromEntries(Object.keys(observations).map((s) => [s, describe(observations, s as Signal)]));
      this.o.log.info("eviction manager: node condition changed", { condition: c, status: next.has(c), signals });
    }
  }
}

function describe(observations: Observations, signal: Signal): string {
  const o = observations[signal];
  return o ? `${o.available} available of ${o.capacity}` : "not observed";
}
