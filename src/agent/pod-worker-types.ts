// What the pod workers (pod-workers.ts, whose comment describes the state machine) are to the rest of
// the agent: the seam the sync loop drives (PodWorkers), the questions it answers, the state of one
// worker as it lends it out (read-only), and what the workers call to act on the runtime.
import type { Pod } from "kubernetes-types/core/v1";
import type { PodStatus } from "../pleg";
import type { PodFailure, Waiting } from "../status";
import type { SyncResult } from "./pod-sync";

export type WorkerPhase = "syncing" | "terminating" | "terminated";

/**
 * The kubelet's UpdateType: create (a source added the pod), update (its spec changed), sync (nothing
 * changed in the config: a periodic or event-driven sync) and kill (the source removed or deleted it).
 */
export type UpdateType = "create" | "update" | "sync" | "kill";

export interface UpdatePodOptions {
  type: UpdateType;
  pod: Pod;
  /** With kill: the source no longer has the pod, so after terminating it is removed and forgotten. */
  remove?: boolean;
}

export interface PodWorkerState {
  readonly uid: string;
  readonly fullName: string;
  pod: Pod;
  phase: WorkerPhase;
  /** The config removed the pod: after terminating, its runtime objects are removed and the worker forgotten. */
  removed: boolean;
  /** A create came for this UID while it was terminating: the spec to start afresh once it has terminated. */
  restartRequested?: Pod;
  waiting: Map<string, Waiting>;
  /** The last sync could not make every volume (FailedMount): why, for the pod's conditions. */
  volumesNotReady?: Waiting;
  /** Why the pod can never run (admission rejected it, an init container failed with restartPolicy Never). */
  failed?: PodFailure;
  /** Admission refused it: nothing of it ever ran, and its status is only the refusal. */
  rejected?: boolean;
  /**
   * The node stopped it (evictPod): the grace period its termination uses at most, whatever its spec
   * says (the kubelet's PodTerminationGracePeriodSecondsOverride; a later deletion can only shorten it).
   * Its reason and message are in `failed`, which no sync overwrites once it is set.
   */
  evicted?: { gracePeriodSeconds: number };
  /** When the worker is due for its next sync (ms since the epoch), if it is queued. */
  dueAt?: number;
  lastSyncTime: number;
  lastError?: string;
  syncs: number;
  /** First time the agent saw the pod (RFC 3339), the pod's startTime. */
  seen: string;
}

/**
 * A worker's state as the workers lend it out: read-only. What a pod is (its spec, its phase in the
 * state machine, why it waits or failed) is the workers' to change, through the calls of PodWorkers.
 */
export type PodWorkerView = Readonly<Omit<PodWorkerState, "waiting">> & { readonly waiting: ReadonlyMap<string, Waiting> };

/**
 * How the node stops a running pod on its own (the kubelet's KillPodOptions of killPodNow): the status
 * the pod keeps (phase Failed with this reason and message, as the eviction manager's podStatusFunc
 * sets it) and the grace period its containers get instead of the spec's.
 */
export interface EvictOptions {
  status: PodFailure;
  gracePeriodSeconds: number;
}

/** What the workers call to act on the runtime: the PodSyncer in the agent, a fake in tests. */
export interface PodSyncActions {
  syncPod(pod: Pod, status: PodStatus | undefined): Promise<SyncResult>;
  killPod(pod: Pod | undefined, status: PodStatus | undefined, graceOverride: number | undefined): Promise<void>;
  removePod(uid: string, status: PodStatus | undefined): Promise<void>;
  /** Asks the PLEG to relist this pod now, so the next sync and the status see the sync's effects. */
  relistPod(uid: string): Promise<void>;
}

/** The seam the sync loop drives; PodWorkerPool on a node, a recording fake in the sync loop's tests. */
export interface PodWorkers {
  /** A source's view of the pod changed (create, update), or it must stop (kill). */
  updatePod(o: UpdatePodOptions): void;
  /** Something may have changed for a known pod (a PLEG event, a probe result, a due retry): sync it. */
  syncPod(uid: string): void;
  /** Only the pod's API status changed (RECONCILE): keep the newest object, nothing to do on the node. */
  reconcile(pod: Pod): void;
  /** Admission refused the pod: it is tracked as terminated and Failed, and nothing of it ever runs. */
  reject(pod: Pod, failure: PodFailure): void;
  /**
   * The node stops a running pod on its own (eviction): it terminates within the given grace period and
   * its status becomes phase Failed with the given reason and message, for good. False (nothing done)
   * when the pod is unknown or not running any more (being deleted, terminating, already evicted).
   */
  evictPod(uid: string, o: EvictOptions): boolean;
  /**
   * A terminated pod its source still has starts afresh with its spec (as a restart request does: a
   * new syncing worker, status and start time new; the runtime objects of the previous run are the
   * first sync's to replace). False when it is unknown, not terminated, removed, or already restarting.
   */
  restartPod(uid: string): boolean;
  /** The pods whose queued sync is due now, taken off the queue (the 1 s tick syncs them). */
  getDuePods(): string[];
  /** Every worker's state, read-only. */
  states(): PodWorkerView[];
  get(uid: string): PodWorkerView | undefined;
  /** Whether a worker exists for the UID (the kubelet's podWorkers knows of the pod's sync status). */
  knows(uid: string): boolean;
  /**
   * Whether the pod may still have running containers: it has a worker that has not terminated (the
   * kubelet's CouldHaveRunningContainers; an unknown UID has none the workers started).
   */
  couldHaveRunningContainers(uid: string): boolean;
  /** Whether the pod's termination was requested: it terminates or has terminated (IsPodTerminationRequested). */
  isPodTerminationRequested(uid: string): boolean;
  /**
   * Whether the pod's content (volumes, folders) may go: it has terminated and its source removed it
   * (ShouldPodContentBeRemoved). False for an unknown UID: what the node does then is the caller's.
   */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** Whether the pod's runtime objects may go: it has terminated (ShouldPodRuntimeBeRemoved); false when unknown. */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
  /** Resolves when no worker is busy or has work pending (tests, shutdown). */
  idle(): Promise<void>;
}

/**
 * The answers of PodWorkers' questions over one worker's state (undefined: no worker), shared by every
 * implementation so that a fake answers as the pool does.
 */
export const workerAnswers = {
  couldHaveRunningContainers: (s: PodWorkerView | undefined): boolean => s !== undefined && s.phase !== "terminated",
  isPodTerminationRequested: (s: PodWorkerView | undefined): boolean => s !== undefined && s.phase !== "syncing",
  shouldPodContentBeRemoved: (s: PodWorkerView | undefined): boolean => s !== undefined && s.phase === "terminated" && s.removed,
  shouldPodRuntimeBeRemoved: (s: PodWorkerView | undefined): boolean => s !== undefined && s.phase === "terminated",
};
