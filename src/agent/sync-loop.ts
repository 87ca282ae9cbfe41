// The syncLoop: the kubelet's main loop (kubelet.go syncLoop / syncLoopIteration). Everything that may
// change what a pod worker does arrives here as one typed event on one queue, and one iteration at a
// time hands it to the SyncHandler (the Agent). Producers never block: PodConfig's updates, the PLEG's
// events, the prober's result changes and the two tickers only push.
import type { Pod } from "kubernetes-types/core/v1";
import type { PodUpdate } from "../config";
import type { PodLifecycleEvent } from "../pleg";
import type { ProbeUpdate } from "../prober";
import type { ObjectRef } from "../objects";
import { BoundedQueue, type Clock, LOG_LEVELS, type Logger, type Timer } from "../util";

/**
 * Housekeeping is expected to take at most this long; longer is warned about, as the kubelet does
 * (housekeepingWarningDuration, 1 s): a slow cleanup delays every other event of the loop behind it.
 */
export const HOUSEKEEPING_WARNING_MS = 1000;

const podKeys = (pods: readonly Pod[]): string[] => pods.map((p) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`);

/** One input of the loop; `kind` says which of the kubelet's channels it came from. */
export type SyncLoopEvent =
  /** configCh: a source's pods were added, updated, deleted, removed or reconciled (PodConfig). */
  | { kind: "config"; update: PodUpdate }
  /** plegCh: the runtime state of a pod changed. */
  | { kind: "pleg"; event: PodLifecycleEvent }
  /** livenessManager / readinessManager / startupManager updates: a probe result changed. */
  | { kind: "probe"; update: ProbeUpdate }
  /** An API object pods use changed or appeared (ObjectSource.onChange): the kubelet's pod resync, sooner. */
  | { kind: "object"; ref: ObjectRef }
  /** syncCh, every second: pods whose queued work (a backoff's end, a retry, the resync) is due. */
  | { kind: "sync" }
  /** housekeepingCh, every two seconds: cleanups. */
  | { kind: "housekeeping" };

/**
 * What the loop calls, one method per kind of work (the kubelet's SyncHandler). The Agent implements
 * it; the managers of a node (volumes, admission, eviction, events) plug in behind these methods.
 */
export interface SyncHandler {
  /** ADD: admit each new pod (or reject it with a reason) and start a worker for it. */
  handlePodAdditions(pods: Pod[]): void;
  /** UPDATE: the spec changed; the worker syncs the newest one. */
  handlePodUpdates(pods: Pod[]): void;
  /** DELETE: the API server is deleting the pod gracefully; the worker stops it within its grace period. */
  handlePodDeletions(pods: Pod[]): void;
  /** REMOVE: the source no longer has the pod; it is stopped, then its runtime objects are removed. */
  handlePodRemoves(pods: Pod[]): void;
  /** RECONCILE: only the pod's status in the API changed; the newest object is kept, nothing is synced. */
  handlePodReconcile(pods: Pod[]): void;
  /** A PLEG event or a due work item: sync these pods (by UID) now. */
  handlePodSyncs(uids: string[]): void;
  /** A probe result changed: remember why (a failed liveness probe's kill message), then sync the pod. */
  handleProbeResult(update: ProbeUpdate): void;
  /**
   * An object pods use changed: their volumes waiting on it are retried and the pods that use it
   * (volumes, env, pull secrets) synced, so their files follow and waiting containers start.
   */
  handleObjectChange(ref: ObjectRef): void;
  /** Housekeeping: orphaned runtime pods, forgotten probe workers, container GC, periodic reports. */
  handlePodCleanups(): void;
}

export interface SyncLoopOptions {
  handler: SyncHandler;
  /** The pod workers' own work queue: which pods are due at the sync tick. */
  duePods: () => string[];
  clock: Clock;
  log: Logger;
  /** The kubelet's syncCh period: 1 s. */
  syncPeriodMs?: number;
  /** The kubelet's housekeeping period: 2 s. */
  housekeepingPeriodMs?: number;
}

export class SyncLoop {
  private readonly queue = new BoundedQueue<SyncLoopEvent>(Number.POSITIVE_INFINITY);
  private readonly syncPeriodMs: number;
  private readonly housekeepingPeriodMs: number;
  /**
   * The tickers' current timers, one slot per ticker: a fired timer is replaced, never added to, so
   * the loop holds two timers however long it runs (it once kept every fired one: ~130,000 a day).
   */
  private readonly tickers = new Map<SyncLoopEvent["kind"], Timer>();
  /** Events pushed and not yet handled (queued, or handed to the consumer and not yet run). */
  private unhandled = 0;
  private drainedWaiters: (() => void)[] = [];
  /** When the last iteration ran (ms since the epoch); 0 before the first. The syncloop health check. */
  lastIterationAt = 0;

  constructor(private readonly o: SyncLoopOptions) {
    this.syncPeriodMs = o.syncPeriodMs ?? 1000;
    this.housekeepingPeriodMs = o.housekeepingPeriodMs ?? 2000;
  }

  /** Queues an event; never blocks and never drops (only the PLEG's own queue, before this one, is bounded). */
  push(event: SyncLoopEvent): void {
    if (this.queue.push(event)) this.unhandled++;
  }

  /**
   * Runs until the signal aborts: starts the tickers and forwards the PLEG's events, then takes one
   * event at a time. Events queued when the signal aborts are not handled (the next start relists and
   * resyncs everything).
   */
  async run(signal: AbortSignal, plegEvents: AsyncIterable<PodLifecycleEvent>): Promise<void> {
    if (signal.aborted) return;
    const { clock } = this.o;
    const every = (ms: number, event: SyncLoopEvent) => {
      const tick = () => {
        if (signal.aborted) return;
        this.push(event);
        this.tickers.set(event.kind, clock.setTimer(ms, tick));
      };
      this.tickers.set(event.kind, clock.setTimer(ms, tick));
    };
    every(this.syncPeriodMs, { kind: "sync" });
    every(this.housekeepingPeriodMs, { kind: "housekeeping" });
    const forward = (async () => {
      for await (const event of plegEvents) {
        if (signal.aborted) break;
        this.push({ kind: "pleg", event });
      }
    })();
    signal.addEventListener("abort", () => this.queue.close(), { once: true });
    for (;;) {
      const next = await this.queue.next();
      if (next.done || signal.aborted) break;
      try {
        this.syncLoopIteration(next.value);
      } catch (err) {
        this.o.log.error("sync loop iteration failed", { event: next.value.kind, err });
      }
      if (--this.unhandled === 0) this.notifyDrained();
    }
    for (const t of this.tickers.values()) t.cancel();
    this.tickers.clear();
    this.unhandled = 0;
    this.notifyDrained();
    // The PLEG's queue ends when the PLEG stops; the forwarder is not waited for beyond that.
    void forward;
  }

  /**
   * One event, handed to the handler:
   *
   * - config: by the update's operation — ADD → handlePodAdditions (admission, then a worker per
   *   admitted pod), UPDATE → handlePodUpdates, DELETE → handlePodDeletions (graceful: the worker
   *   stops the pod within the deletion's grace period), REMOVE → handlePodRemoves (stop, then remove
   *   everything of the pod), RECONCILE → handlePodReconcile (status only; nothing is synced).
   * - pleg: the pod the event names is synced (handlePodSyncs) — a container started, died or was
   *   removed, or the pod changed in a way no single event says. The PLEG relisted it first, so the
   *   worker sees the new state; a pod no worker knows is left to housekeeping.
   * - probe: handleProbeResult — a liveness or startup failure is noted as the container's kill reason
   *   and the pod is synced, which kills and restarts the container; a readiness change is synced so
   *   the Ready condition follows at once.
   * - object: handleObjectChange — a configMap, secret or service account that pods use changed or
   *   appeared; the volumes waiting on it are retried and the pods that use it are synced.
   * - sync: the pods whose queued work is due (the pod workers' own queue: a crash-loop or image-pull
   *   backoff ending, a retry after a failed sync, the periodic resync) are synced.
   * - housekeeping: handlePodCleanups — once every source has been seen, runtime pods no source has are
   *   killed and removed; probe workers of forgotten pods stop; dead containers are collected.
   */
  syncLoopIteration(event: SyncLoopEvent): void {
    const { handler: h, log, clock } = this.o;
    this.lastIterationAt = clock.now();
    // Every dispatch is logged at debug, as the kubelet's "SyncLoop ADD/UPDATE/…/(PLEG)/(probe)" lines;
    // the fields are only built when debug lines are written (the loop runs every second, idle or not).
    const debug = log.level >= LOG_LEVELS.debug;
    switch (event.kind) {
      case "config": {
        const { op, pods } = event.update;
        if (debug) log.debug(`SyncLoop ${op}`, { source: event.update.source, pods: podKeys(pods) });
        if (op === "ADD") h.handlePodAdditions(pods);
        else if (op === "UPDATE") h.handlePodUpdates(pods);
        else if (op === "DELETE") h.handlePodDeletions(pods);
        else if (op === "REMOVE") h.handlePodRemoves(pods);
        else h.handlePodReconcile(pods);
        return;
      }
      case "pleg": {
        const e = event.event;
        if (debug)
          log.debug("SyncLoop (PLEG): event for pod", { pod: `${e.pod.namespace}/${e.pod.name}`, uid: e.pod.uid, event: e.type, container: e.containerName });
        h.handlePodSyncs([e.pod.uid]);
        return;
      }
      case "probe": {
        const u = event.update;
        if (debug)
          log.debug("SyncLoop (probe)", {
            probe: u.probeType,
            result: u.result,
            pod: `${u.namespace}/${u.podName}`,
            uid: u.podUid,
            container: u.containerName,
          });
        h.handleProbeResult(u);
        return;
      }
      case "object":
        if (debug) log.debug("SyncLoop (object): pods using it are synced", { kind: event.ref.kind, object: `${event.ref.namespace}/${event.ref.name}` });
        h.handleObjectChange(event.ref);
        return;
      case "sync": {
        const due = this.o.duePods();
        if (!due.length) return;
        if (debug) log.debug("SyncLoop (SYNC) pods", { total: due.length, uids: due });
        h.handlePodSyncs(due);
        return;
      }
      case "housekeeping": {
        if (debug) log.debug("SyncLoop (housekeeping)");
        const start = clock.now();
        h.handlePodCleanups();
        const took = clock.now() - start;
        if (took > HOUSEKEEPING_WARNING_MS)
          log.warn("housekeeping took longer than expected", { expected: `${HOUSEKEEPING_WARNING_MS / 1000}s`, actual: `${took / 1000}s` });
        if (debug) log.debug("SyncLoop (housekeeping) end");
        return;
      }
    }
  }

  /** Resolves once every queued event has been handled: how a caller sees the loop quiet. */
  drained(): Promise<void> {
    if (this.unhandled === 0) return Promise.resolve();
    return new Promise((r) => this.drainedWaiters.push(r));
  }

  /** Timers the loop holds (its tickers' current ones): at most two while it runs, none after. */
  get timerCount(): number {
    return this.tickers.size;
  }

  /** Events not yet handled. */
  get pending(): number {
    return this.unhandled;
  }

  private notifyDrained(): void {
    for (const r of this.drainedWaiters.splice(0)) r();
  }
}
