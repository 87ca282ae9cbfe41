// The scheduling queue (pkg/scheduler/backend/queue/scheduling_queue.go, active_queue.go):
// activeQ ordered by the profile's QueueSort plugin; backoffQ (backoff-queue.ts); and the
// unschedulable pods, which wait for a cluster event that one of the plugins that rejected them says
// may help (QueueingHints, queueing-hints.ts), or for 5 minutes. PreEnqueue plugins (scheduling gates) keep pods out of activeQ.
// Events that arrive while a pod is being scheduled are replayed when it comes back.
import type { Pod } from "kubernetes-types/core/v1";
import type { Clock, Timer } from "../../util";
import {
  EVENT_ASSIGNED_POD_ADD,
  EVENT_FORCE_ACTIVATE,
  EVENT_UNSCHEDULABLE_TIMEOUT,
  matchAnyClusterEvent,
  matchClusterEvents,
  podUpdateEvents,
  QueueEvent,
  Action,
  type ClusterEvent,
} from "../framework/events";
import type { QueuedPodInfo } from "../framework/interface";
import type { MaybeStatus } from "../framework/status";
import { NO_LABELS, type Labels } from "../model/labels";
import { PodInfo, termMatches } from "../model/pod-info";
import { BACKOFF_WINDOW_MS, BackoffQueue, keyOf } from "./backoff-queue";
import { KeyedHeap } from "./heap";
import { Nominator } from "./nominator";
import { QueueingHints, Strategy, type QueueHint } from "./queueing-hints";

export const DEFAULT_POD_INITIAL_BACKOFF_MS = 1000;
export const DEFAULT_POD_MAX_BACKOFF_MS = 10_000;
/** DefaultPodMaxInUnschedulablePodsDuration. */
export const DEFAULT_POD_MAX_IN_UNSCHEDULABLE_MS = 5 * 60_000;
/** How often pods that stayed unschedulable too long are flushed. */
export const UNSCHEDULABLE_FLUSH_MS = 30_000;

export type QueueName = "Active" | "Backoff" | "Unschedulable";

export interface SchedulingQueueOptions {
  clock: Clock;
  /** The QueueSort plugin's Less (every profile shares one). */
  less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
  podMaxInUnschedulableMs?: number;
  /** SchedulerPopFromBackoffQ (beta, on by default since 1.33): an idle scheduler pops from backoffQ. */
  popFromBackoffQ?: boolean;
  /** The profile's PreEnqueue plugins; a failing status carries its plugin. */
  preEnqueue?: (pod: PodInfo) => MaybeStatus;
  /** Profile name → the events its plugins registered. */
  hints?: ReadonlyMap<string, readonly QueueHint[]>;
  namespaceLabels?: (namespace: string) => Labels;
  /** A QueueingHint function failed (it counts as Queue). */
  onHintError?: (plugin: string, pod: Pod, err: unknown) => void;
}

type InFlightEntry = { uid: string } | { event: ClusterEvent; oldObj: unknown; newObj: unknown };

function gated(p: QueuedPodInfo): boolean {
  return p.gatingPlugin !== "";
}

export class SchedulingQueue {
  readonly nominator: Nominator;
  private readonly clock: Clock;
  private readonly maxInUnschedulable: number;
  private readonly popFromBackoffQ: boolean;
  private readonly preEnqueue: ((pod: PodInfo) => MaybeStatus) | undefined;
  private readonly hints: QueueingHints;
  private readonly namespaceLabels: (namespace: string) => Labels;

  private readonly active: KeyedHeap<QueuedPodInfo>;
  private readonly backoff: BackoffQueue;
  private readonly unschedulable = new Map<string, QueuedPodInfo>();

  private cycle = 0;
  private seq = 0;
  private readonly inFlight = new Map<string, { index: number; pInfo: QueuedPodInfo; latest?: Pod }>();
  private log: InFlightEntry[] = [];
  private logBase = 0;
  private waiters: Array<(p: QueuedPodInfo | undefined) => void> = [];
  private closed = false;
  private timers: Timer[] = [];

  constructor(o: SchedulingQueueOptions) {
    this.clock = o.clock;
    this.maxInUnschedulable = o.podMaxInUnschedulableMs ?? DEFAULT_POD_MAX_IN_UNSCHEDULABLE_MS;
    this.popFromBackoffQ = o.popFromBackoffQ ?? true;
    this.preEnqueue = o.preEnqueue;
    this.hints = new QueueingHints(o.hints ?? new Map(), o.onHintError);
    this.namespaceLabels = o.namespaceLabels ?? (() => NO_LABELS);
    this.active = new KeyedHeap(keyOf, o.less);
    this.backoff = new BackoffQueue({
      clock: o.clock,
      less: o.less,
      initialBackoffMs: o.podInitialBackoffMs ?? DEFAULT_POD_INITIAL_BACKOFF_MS,
      maxBackoffMs: o.podMaxBackoffMs ?? DEFAULT_POD_MAX_BACKOFF_MS,
      popFromBackoffQ: this.popFromBackoffQ,
    });
    this.nominator = new Nominator((uid) => this.find(uid));
  }

  // -------------------------------------------------------------------------------------------
  // Timers

  /** Run: flushes backoffQ every second (on the second, KEP-5142) and leftover unschedulable pods every 30 s. */
  run(): void {
    const now = this.clock.now();
    const tickBackoff = () => {
      this.flushBackoffQCompleted();
      if (!this.closed) this.timers[0] = this.clock.setTimer(BACKOFF_WINDOW_MS, tickBackoff);
    };
    this.timers[0] = this.clock.setTimer(this.backoff.align(now + BACKOFF_WINDOW_MS) - now, tickBackoff);
    const tickLeftover = () => {
      this.flushUnschedulablePodsLeftover();
      if (!this.closed) this.timers[1] = this.clock.setTimer(UNSCHEDULABLE_FLUSH_MS, tickLeftover);
    };
    this.timers[1] = this.clock.setTimer(UNSCHEDULABLE_FLUSH_MS, tickLeftover);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) t.cancel();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  // -------------------------------------------------------------------------------------------
  // Backoff

  /** initial × 2^(count−1), capped at max; count is the unschedulable count, or the error count after an error. */
  backoffDuration(count: number): number {
    return this.backoff.backoffDuration(count);
  }

  /** getBackoffTime: when the pod's backoff ends (0: no backoff), cached until its next attempt. */
  backoffTime(p: QueuedPodInfo): number {
    return this.backoff.backoffTime(p);
  }

  /** The earliest backoff expiry among pods in backoffQ, for a caller that advances a simulated clock. */
  nextBackoffExpiry(): number | undefined {
    return this.backoff.nextExpiry();
  }

  /** Moves every pod whose backoff completed to activeQ. */
  flushBackoffQCompleted(): void {
    let activated = false;
    for (const p of this.backoff.popCompleted()) {
      if (this.moveToActiveQ(p, QueueEvent.BackoffComplete, true)) activated = true;
    }
    if (activated) this.broadcast();
  }

  /** Moves pods that stayed unschedulable longer than 5 minutes, as the UnschedulableTimeout event. */
  flushUnschedulablePodsLeftover(): void {
    const now = this.clock.now();
    const old = [...this.unschedulable.values()].filter((p) => now - p.timestamp > this.maxInUnschedulable);
    if (old.length > 0) this.movePodsToActiveOrBackoffQueue(old, EVENT_UNSCHEDULABLE_TIMEOUT, undefined, undefined);
  }

  // -------------------------------------------------------------------------------------------
  // Entering the queues

  private newQueuedPodInfo(pi: PodInfo): QueuedPodInfo {
    return {
      podInfo: pi,
      timestamp: this.clock.now(),
      seq: ++this.seq,
      attempts: 0,
      unschedulableCount: 0,
      consecutiveErrorsCount: 0,
      initialAttemptTimestamp: undefined,
      unschedulablePlugins: new Set(),
      pendingPlugins: new Set(),
      gatingPlugin: "",
      gatingPluginEvents: [],
      backoffExpiration: 0,
    };
  }

  private runPreEnqueue(p: QueuedPodInfo): void {
    const s = this.preEnqueue?.(p.podInfo);
    if (s && !s.isSuccess()) {
      p.unschedulablePlugins.add(s.plugin);
      p.gatingPlugin = s.plugin || "PreEnqueue";
      p.gatingPluginEvents = this.hints.pluginEvents(s.plugin);
    } else {
      p.gatingPlugin = "";
      p.gatingPluginEvents = [];
    }
  }

  /** moveToActiveQ: runs PreEnqueue (unless straight from backoffQ); a gated pod goes to the unschedulable pods instead. */
  private moveToActiveQ(p: QueuedPodInfo, event: string, fromBackoffQ: boolean): boolean {
    const key = keyOf(p);
    if (!(this.popFromBackoffQ && fromBackoffQ)) this.runPreEnqueue(p);
    if (gated(p)) {
      if (this.active.has(key) || this.backoff.has(key)) return false;
      this.unschedulable.set(key, p);
      return false;
    }
    p.initialAttemptTimestamp ??= this.clock.now();
    this.unschedulable.delete(key);
    this.backoff.delete(key);
    this.active.addOrUpdate(p);
    if (event === QueueEvent.PodAdd || event === QueueEvent.PodUpdate) this.nominator.add(p.podInfo);
    return true;
  }

  /** moveToBackoffQ: with PopFromBackoffQ, PreEnqueue runs here rather than on the way out. */
  private moveToBackoffQ(p: QueuedPodInfo): boolean {
    const key = keyOf(p);
    if (this.popFromBackoffQ) {
      this.runPreEnqueue(p);
      if (gated(p)) {
        this.unschedulable.set(key, p);
        return false;
      }
    }
    this.unschedulable.delete(key);
    this.backoff.add(p);
    return true;
  }

  /** Add: a new pending pod. */
  add(pod: Pod | PodInfo): void {
    const p = this.newQueuedPodInfo(pod instanceof PodInfo ? pod : new PodInfo(pod));
    if (this.moveToActiveQ(p, QueueEvent.PodAdd, false)) this.broadcast();
  }

  /** Activate: moves the pods to activeQ now (plugins ask for it); in-flight pods get the ForceActivate event. */
  activate(pods: readonly Pod[]): void {
    let activated = false;
    for (const pod of pods) {
      const key = pod.metadata?.uid ?? "";
      const u = this.unschedulable.get(key);
      const b = u ? undefined : this.backoff.delete(key);
      const p = u ?? b;
      if (p) {
        if (this.moveToActiveQ(p, QueueEvent.ForceActivate, !!b)) activated = true;
        continue;
      }
      if (this.inFlight.has(key)) this.log.push({ event: EVENT_FORCE_ACTIVATE, oldObj: undefined, newObj: pod });
    }
    if (activated) this.broadcast();
  }

  /** Update: a pending pod changed. In a queue it is updated in place; an unschedulable one is requeued if its hints say so. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = newPod.metadata?.uid ?? "";
    const events = podUpdateEvents(oldPod, newPod);
    const flight = this.inFlight.get(key);
    if (flight) {
      flight.latest = newPod;
      for (const e of events) this.log.push({ event: e, oldObj: oldPod, newObj: newPod });
      return;
    }
    const withNewPod = (p: QueuedPodInfo) => (p.podInfo = p.podInfo.withPod(newPod));
    const active = this.active.get(key);
    if (active) {
      withNewPod(active);
      this.active.addOrUpdate(active);
    }
    const queued = active ?? this.backoff.update(key, withNewPod);
    if (queued) {
      this.nominator.update(key, queued.podInfo);
      return;
    }
    const p = this.unschedulable.get(key);
    if (p) {
      p.podInfo = p.podInfo.withPod(newPod);
      this.nominator.update(key, p.podInfo);
      for (const e of events) {
        const q = this.requeue(p, this.hints.isPodWorthRequeuing(p, e, oldPod, newPod));
        if (q === "Active" || (this.popFromBackoffQ && q === "Backoff")) {
          this.broadcast();
          break;
        }
      }
      return;
    }
    this.add(newPod);
  }

  /** Delete: the pod is gone (or bound by someone else). */
  delete(pod: Pod): void {
    const key = pod.metadata?.uid ?? "";
    this.nominator.delete(key);
    this.active.delete(key) ?? this.backoff.delete(key) ?? this.unschedulable.delete(key);
  }

  // -------------------------------------------------------------------------------------------
  // Popping and coming back

  schedulingCycle(): number {
    return this.cycle;
  }

  /** Pops the head of activeQ (or, when it is empty and PopFromBackoffQ is on, of backoffQ); undefined when there is none. */
  tryPop(): QueuedPodInfo | undefined {
    let p = this.active.pop();
    if (!p && this.popFromBackoffQ) p = this.backoff.popForIdle();
    if (!p) return undefined;
    p.attempts++;
    p.backoffExpiration = 0;
    this.cycle++;
    this.inFlight.set(keyOf(p), { index: this.logBase + this.log.length, pInfo: p });
    this.log.push({ uid: keyOf(p) });
    p.unschedulablePlugins.clear();
    p.pendingPlugins.clear();
    p.gatingPlugin = "";
    p.gatingPluginEvents = [];
    return p;
  }

  /** Pop: waits for a pod; undefined once the queue is closed. */
  pop(): Promise<QueuedPodInfo | undefined> {
    const p = this.tryPop();
    if (p || this.closed) return Promise.resolve(p);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private broadcast(): void {
    while (this.waiters.length > 0) {
      const p = this.tryPop();
      if (!p) return;
      this.waiters.shift()!(p);
    }
  }

  /** Done: the pod's cycle is over; events kept only for it are dropped. */
  done(uid: string): void {
    if (!this.inFlight.delete(uid)) return;
    let min = Infinity;
    for (const f of this.inFlight.values()) if (f.index < min) min = f.index;
    if (min === Infinity) {
      this.logBase += this.log.length;
      this.log = [];
      return;
    }
    const drop = min - this.logBase;
    if (drop > 0) {
      this.log = this.log.slice(drop);
      this.logBase = min;
    }
  }

  /** The newest version of an in-flight pod, when it was updated during its cycle. */
  latestInFlight(uid: string): Pod | undefined {
    return this.inFlight.get(uid)?.latest;
  }

  /**
   * AddUnschedulableIfNotPresent: a pod back from a failed attempt. Events seen while it was in
   * flight decide where it goes: unschedulable pods, backoffQ or activeQ.
   */
  addUnschedulableIfNotPresent(p: QueuedPodInfo): void {
    const key = keyOf(p);
    try {
      if (this.unschedulable.has(key)) throw new Error(`Pod ${p.podInfo.key} is already present in unschedulable queue`);
      if (this.active.has(key)) throw new Error(`Pod ${p.podInfo.key} is already present in the active queue`);
      if (this.backoff.has(key)) throw new Error(`Pod ${p.podInfo.key} is already present in the backoff queue`);
      if (p.unschedulablePlugins.size === 0 && p.pendingPlugins.size === 0) {
        p.consecutiveErrorsCount++;
      } else {
        p.unschedulableCount++;
        p.consecutiveErrorsCount = 0;
      }
      p.timestamp = this.clock.now();
      p.backoffExpiration = 0;
      const q = this.requeue(p, this.hintForInFlightPod(p));
      if (q === "Active" || (this.popFromBackoffQ && q === "Backoff")) this.broadcast();
    } finally {
      this.done(key);
    }
  }

  /** determineSchedulingHintForInFlightPod. */
  private hintForInFlightPod(p: QueuedPodInfo): Strategy {
    if (p.unschedulablePlugins.size === 0 && p.pendingPlugins.size === 0) return Strategy.AfterBackoff;
    const f = this.inFlight.get(keyOf(p));
    if (!f) return Strategy.AfterBackoff;
    let strategy = Strategy.Skip;
    for (let i = f.index - this.logBase + 1; i < this.log.length; i++) {
      const e = this.log[i]!;
      if ("uid" in e) continue;
      const s = this.hints.isPodWorthRequeuing(p, e.event, e.oldObj, e.newObj);
      if (s === Strategy.Immediately) return s;
      if (s === Strategy.AfterBackoff) {
        strategy = s;
        if (p.pendingPlugins.size === 0) return s;
      }
    }
    return strategy;
  }

  /** requeuePodWithQueueingStrategy. */
  private requeue(p: QueuedPodInfo, s: Strategy): QueueName {
    if (s === Strategy.Skip) {
      this.unschedulable.set(keyOf(p), p);
      return "Unschedulable";
    }
    if (s === Strategy.AfterBackoff && this.backoff.isBackingOff(p)) return this.moveToBackoffQ(p) ? "Backoff" : "Unschedulable";
    return this.moveToActiveQ(p, QueueEvent.ScheduleAttemptFailure, false) ? "Active" : "Unschedulable";
  }

  // -------------------------------------------------------------------------------------------
  // Cluster events

  private movePodsToActiveOrBackoffQueue(pods: readonly QueuedPodInfo[], event: ClusterEvent, oldObj: unknown, newObj: unknown): void {
    if (!this.hints.isEventOfInterest(event)) return;
    let activated = false;
    for (const p of pods) {
      if (gated(p) && !matchAnyClusterEvent(event, p.gatingPluginEvents)) continue;
      const s = this.hints.isPodWorthRequeuing(p, event, oldObj, newObj);
      if (s === Strategy.Skip) continue;
      this.unschedulable.delete(keyOf(p));
      const q = this.requeue(p, s);
      if (q === "Active" || (this.popFromBackoffQ && q === "Backoff")) activated = true;
    }
    if (this.inFlight.size > 0) this.log.push({ event, oldObj, newObj });
    if (activated) this.broadcast();
  }

  /** MoveAllToActiveOrBackoffQueue: every unschedulable pod (passing preCheck) whose hints say the event may help. */
  moveAllToActiveOrBackoffQueue(event: ClusterEvent, oldObj?: unknown, newObj?: unknown, preCheck?: (pod: Pod) => boolean): void {
    if (!this.hints.isEventOfInterest(event)) return;
    const pods = [...this.unschedulable.values()].filter((p) => !preCheck || preCheck(p.podInfo.pod));
    this.movePodsToActiveOrBackoffQueue(pods, event, oldObj, newObj);
  }

  /**
   * Pods a bound pod's arrival or change may help: those rejected by PodTopologySpread in its
   * namespace, and those whose required affinity terms match it.
   */
  private podsWithCrossTopologyTerm(pod: Pod): QueuedPodInfo[] {
    const pi = new PodInfo(pod);
    const nsLabels = this.namespaceLabels(pi.namespace);
    const out: QueuedPodInfo[] = [];
    for (const p of this.unschedulable.values()) {
      if (p.unschedulablePlugins.has("PodTopologySpread") && p.podInfo.namespace === pi.namespace) out.push(p);
      else if (p.podInfo.requiredAffinityTerms.some((t) => termMatches(t, pi, nsLabels))) out.push(p);
    }
    return out;
  }

  assignedPodAdded(pod: Pod): void {
    this.movePodsToActiveOrBackoffQueue(this.podsWithCrossTopologyTerm(pod), EVENT_ASSIGNED_POD_ADD, undefined, pod);
  }

  assignedPodUpdated(oldPod: Pod, newPod: Pod, event: ClusterEvent): void {
    if (matchClusterEvents({ resource: "Pod", actionType: Action.UpdatePodScaleDown }, event)) this.moveAllToActiveOrBackoffQueue(event, oldPod, newPod);
    else this.movePodsToActiveOrBackoffQueue(this.podsWithCrossTopologyTerm(newPod), event, oldPod, newPod);
  }

  // -------------------------------------------------------------------------------------------
  // Looking inside

  private find(uid: string): PodInfo | undefined {
    return (this.active.get(uid) ?? this.backoff.get(uid) ?? this.unschedulable.get(uid) ?? this.inFlight.get(uid)?.pInfo)?.podInfo;
  }

  /** The queued entry of a pod, in whichever queue it is. */
  get(uid: string): { queue: QueueName; pInfo: QueuedPodInfo } | undefined {
    const a = this.active.get(uid);
    if (a) return { queue: "Active", pInfo: a };
    const b = this.backoff.get(uid);
    if (b) return { queue: "Backoff", pInfo: b };
    const u = this.unschedulable.get(uid);
    if (u) return { queue: "Unschedulable", pInfo: u };
    return undefined;
  }
}
