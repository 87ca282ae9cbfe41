// PodWorkers: one worker per pod, the kubelet's pod_workers.go. Updates to a busy pod are coalesced
// (its latest spec is kept, a termination request sticks), never lost. A pod goes syncing →
// terminating → terminated; a static pod whose full name is still held by an older instance (an
// edited manifest has a new UID) waits until that one has terminated, so the two never run at once.
// Before each sync the worker waits for a cache entry newer than its last sync, so it never acts on
// a status from before its own last actions (what went wrong in the kubelet's Evented PLEG).
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import type { PodStatusReader } from "../pleg/cache";
import type { PodStatus } from "../pleg/types";
import type { Clock } from "../util/clock";
import type { Logger } from "../util/log";
import type { SyncResult } from "./pod-sync";
import { apiTime } from "../util/time";
import { fullName, podRef } from "./pod-ref";
import type { Waiting } from "./status";

export type WorkerPhase = "syncing" | "terminating" | "terminated";

export interface PodWorkerState {
  uid: string;
  fullName: string;
  pod: Pod;
  phase: WorkerPhase;
  /** The config removed the pod: after terminating, its runtime objects are removed and the worker forgotten. */
  removed: boolean;
  waiting: Map<string, Waiting>;
  failed?: string;
  retryAt?: number;
  lastSyncTime: number;
  lastError?: string;
  syncs: number;
  /** First time the agent saw the pod (RFC 3339), the pod's startTime. */
  seen: string;
  apiStatus?: ApiPodStatus;
}

/** What the workers call to act on the runtime: the PodSyncer in the agent, a fake in tests. */
export interface PodSyncActions {
  syncPod(pod: Pod, status: PodStatus | undefined): Promise<SyncResult>;
  killPod(pod: Pod | undefined, status: PodStatus | undefined, graceOverride: number | undefined): Promise<void>;
  removePod(uid: string, status: PodStatus | undefined): Promise<void>;
  /** Asks the PLEG to relist this pod now, so the next sync and the status see the sync's effects. */
  relistPod(uid: string): Promise<void>;
}

/** The kubelet's backOffPeriod: a pod whose sync failed is synced again after 10 s (pod_workers.go completeWork). */
const SYNC_ERROR_BACKOFF_MS = 10_000;

interface Worker {
  state: PodWorkerState;
  busy: boolean;
  pending: boolean;
  /** Its containers and sandboxes have been removed (only once terminated and removed). */
  cleanedUp?: boolean;
}

export class PodWorkers {
  private workers = new Map<string, Worker>();
  private idleWaiters: (() => void)[] = [];
  /** Called after each sync and on termination, for status updates and metrics. */
  onSynced: (state: PodWorkerState, result: SyncResult | undefined) => void = () => {};

  constructor(
    private readonly actions: PodSyncActions,
    private readonly cache: PodStatusReader,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  states(): PodWorkerState[] {
    return [...this.workers.values()].map((w) => w.state);
  }
  get(uid: string): PodWorkerState | undefined {
    return this.workers.get(uid)?.state;
  }
  has(uid: string): boolean {
    return this.workers.has(uid);
  }

  /** ADD, UPDATE, RECONCILE, or a periodic/PLEG-driven sync: keep the newest spec and sync. */
  sync(pod: Pod): void {
    const uid = podRef(pod).uid;
    let w = this.workers.get(uid);
    if (!w) {
      w = {
        state: { uid, fullName: fullName(pod), pod, phase: "syncing", removed: false, waiting: new Map(), lastSyncTime: 0, syncs: 0, seen: apiTime(this.clock.now()) },
        busy: false,
        pending: false,
      };
      this.workers.set(uid, w);
    } else if (w.state.phase === "syncing") {
      w.state.pod = pod;
    }
    this.schedule(w);
  }

  /**
   * RECONCILE: only the pod's status in the API changed (often our own status write coming back
   * through the watch). The newest object is kept; nothing needs doing on the node for it.
   */
  reconcile(pod: Pod): void {
    const w = this.workers.get(podRef(pod).uid);
    if (w && w.state.phase === "syncing") w.state.pod = pod;
  }

  /** Syncs a pod the workers know by uid (PLEG event, due backoff, resync). */
  syncUid(uid: string): void {
    const w = this.workers.get(uid);
    if (w) this.schedule(w);
  }

  /** DELETE/REMOVE: terminate the pod; with remove, also clean it up and forget it afterwards. */
  terminate(uid: string, opts: { remove: boolean; pod?: Pod }): void {
    let w = this.workers.get(uid);
    if (!w) {
      if (!opts.pod) return;
      this.sync(opts.pod);
      w = this.workers.get(uid)!;
    }
    // The newest object carries the deletion's grace period (metadata.deletionGracePeriodSeconds).
    if (opts.pod && w.state.phase !== "terminated") w.state.pod = opts.pod;
    if (w.state.phase === "syncing") w.state.phase = "terminating";
    if (opts.remove) w.state.removed = true;
    this.schedule(w);
  }

  /** Resolves when no worker is busy or has work pending (tests, shutdown). */
  idle(): Promise<void> {
    if ([...this.workers.values()].every((w) => !w.busy && !w.pending)) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
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
      if (w.state.phase === "terminated" && w.state.removed) this.workers.delete(w.state.uid);
      this.released(w);
      if ([...this.workers.values()].every((x) => !x.busy && !x.pending)) for (const r of this.idleWaiters.splice(0)) r();
    }
  }

  /** Another instance of the same full name that has not terminated yet blocks this one from starting. */
  private blockedBy(w: Worker): PodWorkerState | undefined {
    for (const o of this.workers.values()) {
      if (o !== w && o.state.fullName === w.state.fullName && o.state.phase !== "terminated" && o.state.syncs > 0 && w.state.syncs === 0) return o.state;
      if (o !== w && o.state.fullName === w.state.fullName && o.state.phase !== "terminated" && o.state.removed) return o.state;
    }
    return undefined;
  }

  private async removeTerminated(w: Worker, status: PodStatus | undefined): Promise<void> {
    await this.actions.removePod(w.state.uid, status);
    await this.actions.relistPod(w.state.uid);
    w.cleanedUp = true;
  }

  /** A worker that finished terminating may release a waiting instance of the same name. */
  private released(w: Worker): void {
    if (w.state.phase !== "terminated") return;
    for (const o of this.workers.values()) if (o !== w && o.state.fullName === w.state.fullName && o.state.phase === "syncing") this.schedule(o);
  }

  private async step(w: Worker): Promise<void> {
    const s = w.state;
    if (s.phase === "terminated") {
      // Terminated earlier (an API deletion) and now removed from its source: clean up what is left.
      if (s.removed && !w.cleanedUp) {
        try {
          // Relisted first: with the evented PLEG nothing else may refresh this pod's entry for minutes.
          const at = this.clock.now();
          await this.actions.relistPod(s.uid);
          const after = await this.cache.getNewerThan(s.uid, at);
          await this.removeTerminated(w, after.status);
        } catch (err) {
          this.log.error(`removing pod ${s.fullName} failed: ${(err as Error).message}`);
        }
        this.onSynced(s, undefined);
      }
      return;
    }
    const status = await this.cache.getNewerThan(s.uid, s.lastSyncTime);
    if (s.phase === "syncing") {
      const blocker = this.blockedBy(w);
      if (blocker) {
        this.log.info(`pod ${s.fullName} (${s.uid.slice(0, 8)}) waits for the previous instance (${blocker.uid.slice(0, 8)}) to terminate`);
        return;
      }
      let result: SyncResult | undefined;
      try {
        result = await this.actions.syncPod(s.pod, status.status);
        s.waiting = result.waiting;
        s.failed = result.failed;
        // A sync that reported errors (CreateContainerError, a failed sandbox…) is retried after the
        // kubelet's pod-sync backOffPeriod, as a sync that threw is: nothing else may come for it.
        s.retryAt = result.retryAt ?? (result.errors.length ? this.clock.now() + SYNC_ERROR_BACKOFF_MS : undefined);
        s.lastError = result.errors.join("; ") || undefined;
        if (result.errors.length) this.log.warn(`sync of pod ${s.fullName}: ${result.errors.join("; ")}`);
      } catch (err) {
        s.lastError = (err as Error).message;
        this.log.error(`sync of pod ${s.fullName} failed: ${s.lastError}`);
        // As the kubelet's pod-sync backOffPeriod: try again in 10 s unless something happens first.
        s.retryAt = this.clock.now() + SYNC_ERROR_BACKOFF_MS;
      }
      s.syncs++;
      // The relist that follows starts after lastSyncTime, so the next sync's wait is satisfied by it.
      s.lastSyncTime = this.clock.now();
      await this.actions.relistPod(s.uid);
      this.onSynced(s, result);
      return;
    }
    // Terminating: stop everything with the grace period, then (if removed) clean up.
    try {
      // A pod deleted through the API stops within the grace period the deletion set (which a second
      // deletion may have shortened), not the spec's: the kubelet's killPodOptions / podWorkers.
      await this.actions.killPod(s.pod, status.status, s.pod.metadata?.deletionGracePeriodSeconds ?? undefined);
      const killedAt = this.clock.now();
      await this.actions.relistPod(s.uid);
      s.phase = "terminated";
      if (s.removed) {
        const after = await this.cache.getNewerThan(s.uid, killedAt);
        await this.removeTerminated(w, after.status ?? status.status);
      }
      this.log.info(`pod ${s.fullName} (${s.uid.slice(0, 8)}) terminated${s.removed ? " and removed" : ""}`);
    } catch (err) {
      s.lastError = (err as Error).message;
      this.log.error(`terminating pod ${s.fullName} failed: ${s.lastError}`);
      s.retryAt = this.clock.now() + 1000;
    }
    s.lastSyncTime = this.clock.now();
    this.onSynced(s, undefined);
  }
}
