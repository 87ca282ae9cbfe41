// PodWorkers: one worker per pod UID, the kubelet's pod_workers.go. The sync loop tells the workers
// what the sources want (updatePod) and when a pod's state may have changed (syncPod); each worker
// turns that into one sync, kill or cleanup at a time against the runtime.
//
// The state machine of one UID:
//
//   (none) ──create/update──▶ syncing ──kill, deletionTimestamp, terminal phase──▶ terminating
//   terminating ──killPod done──▶ terminated ──removed by its source, runtime objects removed──▶ (forgotten)
//   (none) ──reject (admission)──▶ terminated (phase Failed; nothing ever ran)
//   syncing ──evictPod (the eviction manager)──▶ terminating (phase Failed, its reason, its grace) ──▶ terminated
//   terminated, not removed ──restartPod (an evicted pod whose pressure is gone)──▶ syncing afresh
//
// - syncing: the pod should run; every sync moves the runtime toward its newest spec (PodSyncActions).
// - terminating: every container and sandbox is stopped within the grace period (the deletion's, if
//   the API server set one). Nothing starts again for this UID.
// - terminated: everything has stopped; the final status stands. A pod whose source still lists it (an
//   API pod being deleted) stays here until the source drops it; then its containers, sandboxes, volumes
//   and cgroup are removed and the worker is forgotten.
// - evicted: the node itself stopped a running pod (the kubelet's killPodNow with a podStatusFunc): it
//   terminates like a deleted pod, but within the eviction's grace period, and its status is phase Failed
//   with the eviction's reason and message from then on. Its source still has it, so it stays listed
//   as terminated and is not started again for that UID unless the agent asks (restartPod: a file, URL
//   or pushed pod evicted for a node pressure that has gone); only its source's deletion removes it.
//
// What blocks a pod:
// - A new instance that has never synced waits while another instance with the same full name
//   (namespace/name) has not terminated: an edited static pod has a new UID, and the two must never
//   run at once (the kubelet's "pod is waiting for a previous instance of the same name").
// - Every sync waits for a pod status cache entry newer than its previous sync, so it never acts on a
//   status from before its own last actions (what went wrong in the kubelet's Evented PLEG).
//
// What is never lost:
// - Updates to a busy worker are coalesced: its newest spec is kept and one more step runs after the
//   current one; a kill request sticks.
// - A create for a UID that is terminating or terminated (a manifest reverted X→Y→X within the old
//   instance's grace period, a pushed pod deleted and pushed again) is remembered: when termination
//   has finished (and, for a removed pod, its runtime objects are gone) the worker starts over as a
//   fresh "syncing" worker with that spec — the kubelet's restartRequested / TerminatedAndRecreatedPod.
//   A later kill cancels the request. Meanwhile the pod is reported as Pending with the reason.
//
// The work queue is the workers' own: after each step the worker is due again — after the sync's own
// retry time (a crash-loop or image-pull backoff ending), after the kubelet's backOffPeriod (10 s) when
// the sync failed, otherwise after syncFrequency — each with the kubelet's jitter (up to +50 %), drawn
// from the injected random source. The sync loop's 1 s tick asks for getDuePods().
import type { Pod } from "kubernetes-types/core/v1";
import { isPodTerminal, podKey, podRef } from "../api";
import type { PodStatus, PodStatusReader } from "../pleg";
import { apiTime, type Clock, errorMessage, type Logger } from "../util";
import type { SyncResult } from "./pod-sync";
import type { PodFailure } from "../status";
import {
  workerAnswers,
  type EvictOptions,
  type PodSyncActions,
  type PodWorkers,
  type PodWorkerState,
  type PodWorkerView,
  type UpdatePodOptions,
} from "./pod-worker-types";

export {
  workerAnswers,
  type EvictOptions,
  type PodSyncActions,
  type PodWorkers,
  type PodWorkerState,
  type PodWorkerView,
  type UpdatePodOptions,
  type UpdateType,
  type WorkerPhase,
} from "./pod-worker-types";

export interface PodWorkerPoolOptions {
  actions: PodSyncActions;
  cache: PodStatusReader;
  clock: Clock;
  log: Logger;
  /** The kubelet's syncFrequency: a pod is synced at least this often (default 1 min, plus up to 50 %). */
  resyncIntervalMs?: number;
  /** Source of the jitter, in [0, 1); Math.random on a node, a fixed value in tests. */
  random?: () => number;
  /** Called after each step that changed what the pod's status says (sync, termination, removal). */
  onSynced?: (state: PodWorkerView, result: SyncResult | undefined) => void;
  /**
   * Called when a sync or a termination is about to act on the runtime status it just read: the
   * kubelet's SyncPod and SyncTerminatingPod begin by publishing the status of what the runtime has
   * now, so a main container that exited shows terminated while the sidecars it leaves are stopped.
   */
  beforeSync?: (state: PodWorkerView) => void;
  /**
   * The pod with the resources the node has allocated to it (allocation-manager.ts): what a worker
   * keeps and syncs, as the kubelet's UpdatePod takes the allocated pod. The pod as given without it.
   */
  fromAllocation?: (pod: Pod) => Pod;
}

/** The kubelet's backOffPeriod: a pod whose sync failed is synced again after 10 s (pod_workers.go completeWork). */
export const SYNC_ERROR_BACKOFF_MS = 10_000;
/** How soon a failed termination is tried again. */
const KILL_RETRY_MS = 1_000;
/** The kubelet's workerResyncIntervalJitterFactor and workerBackOffPeriodJitterFactor. */
const JITTER_FACTOR = 0.5;

/**
 * A pod the API server is deleting, or that has already finished (a restarted agent lists Succeeded
 * and Failed pods too), is never started: the kubelet's UpdatePod marks it terminating at once.
 */
function markTerminatingIfFinished(s: PodWorkerState): void {
  if (s.phase === "syncing" && (s.pod.metadata?.deletionTimestamp || isPodTerminal(s.pod))) s.phase = "terminating";
}

/**
 * The grace period a terminating pod's containers get instead of the spec's, if any. A pod deleted through
 * the API stops within the grace period the deletion set (which a second deletion may have shortened); an
 * evicted pod within the eviction's; both: the shorter (the kubelet's calculateEffectiveGracePeriod
 * never lengthens a termination's grace period once set).
 */
function killGracePeriod(s: PodWorkerState): number | undefined {
  const deletion = s.pod.metadata?.deletionGracePeriodSeconds ?? undefined;
  const eviction = s.evicted?.gracePeriodSeconds;
  if (deletion === undefined) return eviction;
  return eviction === undefined ? deletion : Math.min(deletion, eviction);
}

interface Worker {
  state: PodWorkerState;
  busy: boolean;
  pending: boolean;
  /** Its containers and sandboxes have been removed (only once terminated and removed). */
  cleanedUp?: boolean;
  /** When the relist after the removal was asked for: a restarted worker's first sync waits for it. */
  cleanedUpAt?: number;
}

export class PodWorkerPool implements PodWorkers {
  private readonly workers = new Map<string, Worker>();
  private idleWaiters: (() => void)[] = [];
  private readonly random: () => number;
  private readonly resyncIntervalMs: number;

  constructor(private readonly o: PodWorkerPoolOptions) {
    this.random = o.random ?? Math.random;
    this.resyncIntervalMs = o.resyncIntervalMs ?? 60_000;
  }

  states(): PodWorkerView[] {
    return [...this.workers.values()].map((w) => w.state);
  }
  get(uid: string): PodWorkerView | undefined {
    return this.workers.get(uid)?.state;
  }
  knows(uid: string): boolean {
    return this.workers.has(uid);
  }
  couldHaveRunningContainers(uid: string): boolean {
    return workerAnswers.couldHaveRunningContainers(this.get(uid));
  }
  isPodTerminationRequested(uid: string): boolean {
    return workerAnswers.isPodTerminationRequested(this.get(uid));
  }
  shouldPodContentBeRemoved(uid: string): boolean {
    return workerAnswers.shouldPodContentBeRemoved(this.get(uid));
  }
  shouldPodRuntimeBeRemoved(uid: string): boolean {
    return workerAnswers.shouldPodRuntimeBeRemoved(this.get(uid));
  }

  updatePod({ type, pod: given, remove }: UpdatePodOptions): void {
    const pod = this.o.fromAllocation?.(given) ?? given;
    const uid = podRef(pod).uid;
    let w = this.workers.get(uid);
    if (type === "kill") {
      w ??= this.add(pod);
      // The newest object carries the deletion's grace period (metadata.deletionGracePeriodSeconds).
      if (w.state.phase !== "terminated") w.state.pod = pod;
      if (w.state.phase === "syncing") w.state.phase = "terminating";
      if (remove) w.state.removed = true;
      w.state.restartRequested = undefined;
      this.schedule(w);
      return;
    }
    if (!w) {
      w = this.add(pod);
    } else if (w.state.phase === "syncing") {
      w.state.pod = pod;
    } else if (type === "create") {
      this.o.log.info("pod is still terminating and was added again: it starts afresh once termination has finished", { pod: w.state.fullName, uid });
      w.state.restartRequested = pod;
    } else if (w.state.restartRequested && type === "update") {
      w.state.restartRequested = pod;
    }
    markTerminatingIfFinished(w.state);
    this.schedule(w);
  }

  syncPod(uid: string): void {
    const w = this.workers.get(uid);
    if (w) this.schedule(w);
  }

  reconcile(pod: Pod): void {
    const w = this.workers.get(podRef(pod).uid);
    if (w && w.state.phase === "syncing") w.state.pod = this.o.fromAllocation?.(pod) ?? pod;
  }

  reject(pod: Pod, failure: PodFailure): void {
    const w = this.workers.get(podRef(pod).uid) ?? this.add(pod);
    if (w.state.syncs > 0 || w.state.phase !== "syncing") return; // admission only ever sees new pods
    w.state.phase = "terminated";
    w.state.failed = failure;
    w.state.rejected = true;
    this.o.log.warn("pod rejected", { pod: w.state.fullName, uid: w.state.uid, reason: failure.reason, message: failure.message });
    this.o.onSynced?.(w.state, undefined);
  }

  evictPod(uid: string, o: EvictOptions): boolean {
    const w = this.workers.get(uid);
    if (!w || w.state.phase !== "syncing" || w.state.restartRequested) return false;
    w.state.phase = "terminating";
    w.state.failed = o.status;
    w.state.evicted = { gracePeriodSeconds: o.gracePeriodSeconds };
    this.o.log.warn("pod evicted", { pod: w.state.fullName, uid, gracePeriod: `${o.gracePeriodSeconds}s`, reason: o.status.reason, message: o.status.message });
    this.schedule(w);
    return true;
  }

  restartPod(uid: string): boolean {
    const w = this.workers.get(uid);
    if (!w || w.state.phase !== "terminated" || w.state.removed || w.state.restartRequested) return false;
    w.state.restartRequested = w.state.pod;
    this.schedule(w);
    return true;
  }

  getDuePods(): string[] {
    const now = this.o.clock.now();
    const due: string[] = [];
    for (const w of this.workers.values()) {
      if (w.state.dueAt !== undefined && w.state.dueAt <= now) {
        w.state.dueAt = undefined;
        due.push(w.state.uid);
      }
    }
    return due;
  }

  idle(): Promise<void> {
    if (this.allIdle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private allIdle(): boolean {
    for (const w of this.workers.values()) if (w.busy || w.pending) return false;
    return true;
  }

  private add(pod: Pod): Worker {
    const w: Worker = { state: this.freshState(pod), busy: false, pending: false };
    this.workers.set(w.state.uid, w);
    return w;
  }

  private freshState(pod: Pod): PodWorkerState {
    return {
      uid: podRef(pod).uid,
      fullName: podKey(pod),
      pod,
      phase: "syncing",
      removed: false,
      waiting: new Map(),
      lastSyncTime: 0,
      syncs: 0,
      seen: apiTime(this.o.clock.now()),
    };
  }

  /** Queues the worker's next sync after delayMs, with the kubelet's jitter. */
  private enqueue(s: PodWorkerState, delayMs: number): void {
    s.dueAt = this.o.clock.now() + delayMs * (1 + this.random() * JITTER_FACTOR);
  }

  private schedule(w: Worker): void {
    if (w.busy) {
      w.pending = true;
      return;
    }
    w.busy = true;
    void this.run(w);
  }

  private async run(w: Worker): Promise<void> {
    try {
      do {
        w.pending = false;
        await this.step(w);
      } while (w.pending);
    } finally {
      w.busy = false;
      this.afterTermination(w);
      if (this.allIdle()) for (const r of this.idleWaiters.splice(0)) r();
    }
  }

  /**
   * Once a worker has terminated (and, if removed, been cleaned up): a requested restart starts it
   * afresh, a removed one is forgotten, and an instance of the same name waiting for it may go.
   */
  private afterTermination(w: Worker): void {
    const s = w.state;
    if (s.phase !== "terminated" || (s.removed && !w.cleanedUp)) return;
    if (s.restartRequested) {
      const pod = s.restartRequested;
      this.o.log.info("pod has terminated; starting it again as its source still has it", { pod: s.fullName, uid: s.uid });
      // Its first sync must see the runtime as the termination left it: the relist asked for after
      // the cleanup (or the kill). Not a later one: with the evented PLEG none may come for minutes.
      w.state = { ...this.freshState(pod), lastSyncTime: w.cleanedUpAt ?? s.lastSyncTime };
      w.cleanedUp = undefined;
      w.cleanedUpAt = undefined;
      markTerminatingIfFinished(w.state);
      this.schedule(w);
    } else if (s.removed) {
      this.workers.delete(s.uid);
    }
    for (const o of this.workers.values()) if (o !== w && o.state.fullName === s.fullName && o.state.phase === "syncing") this.schedule(o);
  }

  /** Another instance of the same full name that has not terminated yet blocks this one from starting. */
  private blockedBy(w: Worker): PodWorkerState | undefined {
    for (const o of this.workers.values()) {
      if (o === w || o.state.fullName !== w.state.fullName || o.state.phase === "terminated") continue;
      if ((o.state.syncs > 0 && w.state.syncs === 0) || o.state.removed) return o.state;
    }
    return undefined;
  }

  private async removeTerminated(w: Worker, status: PodStatus | undefined): Promise<void> {
    await this.o.actions.removePod(w.state.uid, status);
    w.cleanedUpAt = this.o.clock.now();
    await this.o.actions.relistPod(w.state.uid);
    w.cleanedUp = true;
  }

  private async step(w: Worker): Promise<void> {
    const s = w.state;
    const { actions, cache, clock, log } = this.o;
    if (s.phase === "terminated") {
      // Terminated earlier (an API deletion) and now removed from its source: clean up what is left.
      if (s.removed && !w.cleanedUp) {
        try {
          // Relisted first: with the evented PLEG nothing else may refresh this pod's entry for minutes.
          const at = clock.now();
          await actions.relistPod(s.uid);
          const after = await cache.getNewerThan(s.uid, at);
          await this.removeTerminated(w, after.status);
        } catch (err) {
          log.error("removing a pod failed", { pod: s.fullName, uid: s.uid, err });
          this.enqueue(s, KILL_RETRY_MS);
        }
        this.o.onSynced?.(s, undefined);
      }
      return;
    }
    const status = await cache.getNewerThan(s.uid, s.lastSyncTime);
    if (s.phase === "syncing") {
      const blocker = this.blockedBy(w);
      if (blocker) {
        log.info("pod waits for its previous instance to terminate", { pod: s.fullName, uid: s.uid, previous: blocker.uid });
        return;
      }
      let result: SyncResult | undefined;
      try {
        this.o.beforeSync?.(s);
        result = await actions.syncPod(s.pod, status.status);
        s.waiting = result.waiting;
        s.volumesNotReady = result.volumesNotReady;
        // An eviction that came while this sync ran keeps its status: the pod is Failed for good.
        if (!s.evicted) s.failed = result.failed ? { reason: "Failed", message: result.failed } : undefined;
        s.lastError = result.errors.join("; ") || undefined;
        if (result.errors.length) log.warn("sync of a pod had errors", { pod: s.fullName, uid: s.uid, errors: result.errors });
        // A backoff that ends is synced at its end; a sync that reported errors (CreateContainerError,
        // a failed sandbox…) after the kubelet's backOffPeriod, as one that threw; otherwise the resync.
        if (result.retryAt !== undefined) s.dueAt = result.retryAt;
        else this.enqueue(s, result.errors.length ? SYNC_ERROR_BACKOFF_MS : this.resyncIntervalMs);
      } catch (err) {
        s.lastError = errorMessage(err);
        log.error("sync of a pod failed", { pod: s.fullName, uid: s.uid, err: s.lastError });
        this.enqueue(s, SYNC_ERROR_BACKOFF_MS);
      }
      s.syncs++;
      // The relist that follows starts after lastSyncTime, so the next sync's wait is satisfied by it.
      s.lastSyncTime = clock.now();
      await actions.relistPod(s.uid);
      this.o.onSynced?.(s, result);
      return;
    }
    // Terminating: stop everything with the grace period, then (if removed) clean up.
    try {
      this.o.beforeSync?.(s);
      await actions.killPod(s.pod, status.status, killGracePeriod(s));
      const killedAt = clock.now();
      await actions.relistPod(s.uid);
      s.phase = "terminated";
      s.dueAt = undefined;
      if (s.removed) {
        const after = await cache.getNewerThan(s.uid, killedAt);
        await this.removeTerminated(w, after.status ?? status.status);
      }
      s.lastSyncTime = killedAt;
      log.info(s.removed ? "pod terminated and removed" : "pod terminated", { pod: s.fullName, uid: s.uid });
    } catch (err) {
      s.lastError = errorMessage(err);
      log.error("terminating a pod failed", { pod: s.fullName, uid: s.uid, err: s.lastError });
      this.enqueue(s, KILL_RETRY_MS);
      s.lastSyncTime = clock.now();
    }
    this.o.onSynced?.(s, undefined);
  }
}
