// The PLEG's vocabulary: what a relist sees of a pod, the status it caches, and the events it emits.
import type { PodRef } from "../api";
import type { ContainerStatus, PodSandboxStatus } from "../cri";

/** The lifecycle events the kubelet's PLEG sends to the sync loop (ContainerChanged is never sent). */
export type PodLifecycleEventType = "ContainerStarted" | "ContainerDied" | "ContainerRemoved" | "PodSync";

/** generic: found by a periodic relist; evented: found by the relist of one pod a runtime event asked for. */
export type PlegMode = "generic" | "evented";

/** A pod's identity (src/api): uid, name and namespace, as the runtime's labels give them. */
export type { PodRef } from "../api";

export interface PodLifecycleEvent {
  type: PodLifecycleEventType;
  pod: PodRef;
  /** The container (or sandbox) the event is about; absent for PodSync. */
  containerId?: string;
  /** The container's name; for a sandbox, "POD" as in the kubelet's logs. */
  containerName?: string;
  sandbox?: boolean;
  /** For ContainerDied, when the runtime still knows the container. */
  exitCode?: number;
  reason?: string;
  mode: PlegMode;
  /** When the relist that found it started (ms since the epoch). */
  time: number;
}

/** A container's (or sandbox's) state as the relist records it, the kubelet's plegContainerState. */
export type RecordedState = "running" | "exited" | "unknown" | "non-existent";

export interface RuntimeContainer {
  id: string;
  /** The sandbox it runs in; a sandbox's own id for a sandbox. */
  podSandboxId: string;
  name: string;
  sandbox: boolean;
  state: RecordedState;
  createdAt: number;
}

/** One pod as a relist sees it: the sandboxes and containers grouped by pod UID. */
export interface RuntimePod extends PodRef {
  /** Sandboxes and containers, keyed by id. */
  containers: Map<string, RuntimeContainer>;
}

/** What the cache holds for a pod, the kubelet's kubecontainer.PodStatus. */
export interface PodStatus extends PodRef {
  ips: string[];
  /** Newest first. */
  sandboxStatuses: PodSandboxStatus[];
  /** Newest first. */
  containerStatuses: ContainerStatus[];
}

/** A pod's entry in the status cache (cache.ts): its last status or the error reading it. */
export interface CachedPodStatus {
  status: PodStatus | undefined;
  error: Error | undefined;
  /** When the relist that produced this entry started. */
  timestamp: number;
}

/** The status cache as everyone but the relist sees it: read-only (PodStatusCache in cache.ts). */
export interface PodStatusReader {
  get(uid: string): CachedPodStatus | undefined;
  /** Resolves with the pod's entry once the cache holds one read at or after minTime. */
  getNewerThan(uid: string, minTime: number, signal?: AbortSignal): Promise<CachedPodStatus>;
  uids(): string[];
}

/** The relist's counters (relist.ts): when it last succeeded, how long it took, how often it ran and failed. */
export interface RelistStats {
  /** Start of the last successful full relist (ms), 0 before the first. */
  lastRelistTime: number;
  lastRelistDurationMs: number;
  relists: number;
  podRelists: number;
  relistErrors: number;
}

/**
 * The seam the agent's sync loop uses (the kubelet's PodLifecycleEventGenerator): the Pleg on a node,
 * a fake that tests drive by hand. The cache is read-only to everyone but the generator itself.
 */
export interface PodLifecycleEventGenerator {
  /** Relists (and streams runtime events) until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Lifecycle events for the sync loop, in order; bounded, so a stalled consumer loses only hints. */
  readonly events: AsyncIterable<PodLifecycleEvent>;
  readonly cache: PodStatusReader;
  readonly mode: PlegMode | undefined;
  readonly relistStats: Readonly<RelistStats>;
  /** Relists one pod now: a pod worker asks for it after each step (PodSyncActions.relistPod) so the status is current. */
  requestPodRelist(uid: string, sandboxId?: string, mode?: PlegMode): Promise<void>;
  /**
   * The kubelet's RequestPodReinspect: the pod's statuses are read again at its next relist even when no
   * container changed state (an in-place resize changes only a running container's resources).
   */
  reinspectPod?(uid: string): void;
  /** The kubelet's PLEG health check (last successful relist recent enough). */
  healthy(): { ok: boolean; message: string };
}
