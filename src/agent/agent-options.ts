// What the Agent is made from (AgentOptions): the runtime, the PLEG, the pod config and sources, the
// node's managers or the defaults a test gets without them; the reports it makes (AgentHooks); the
// eviction manager's loop as the agent runs it; and the time a start and a stop wait.
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { PodAdmitHandler } from "../admission";
import type { PodConfig, PodSource, SourceReport } from "../config";
import type { CriClient } from "../cri";
import type { EventRecorder } from "../events";
import type { ContainerGCPolicy, ContainerGCRuntime, GCEvent } from "../gc";
import type { EvictionTarget, LocalStorageEviction, PressureCondition } from "../eviction";
import type { PodLifecycleEventGenerator } from "../pleg";
import type { PodProber, ProbeObservation, ProbeUpdate } from "../prober";
import type { DiskUsage } from "../stats";
import type { PodStatusManager } from "../status";
import type { Clock, Logger } from "../util";
import type { Mounter, MountTable, VolumePlugin } from "../volume";
import type { SyncRuntime } from "./pod-sync";
import type { PodWorkerPoolOptions, PodWorkers } from "./pod-workers";
import type { RuntimeConfigOptions } from "./runtime-config";
import type { ObjectSource, ServiceLister } from "../objects";

/** Reports for metrics and the cluster's mirror pods; none of them may change what the agent does. */
export interface AgentHooks {
  /** A pod's containers all started for the first time: seconds since the agent first saw it. */
  podStarted?(pod: Pod, seconds: number): void;
  containerRestarted?(pod: Pod, container: string): void;
  /** A pod is gone for good: its containers and sandboxes removed. */
  podRemoved?(pod: Pod): void;
  /** Every probe attempt that counted (prober_probe_total, prober_probe_duration_seconds). */
  probeObserved?(o: ProbeObservation): void;
  /** Every report a source sent (its manifest errors, for nodeagent_source_errors). */
  sourceReported?(report: SourceReport): void;
  /** After every housekeeping pass (sd_notify READY, the cluster's mirror pods, the runtime gauges). */
  afterHousekeeping?(): void;
}

export interface AgentOptions {
  /**
   * The CRI calls a pod sync makes (and exec probes), and Status for the runtime's state (runtime-state.ts):
   * the CriClient on a node, a fake in tests.
   */
  runtime: SyncRuntime & Pick<CriClient, "status">;
  pleg: PodLifecycleEventGenerator;
  config: PodConfig;
  /**
   * The pod sources, started by run() and stopped when it ends; orphans are cleaned up only once
   * every one of them has delivered a complete set.
   */
  sources: PodSource[];
  clock: Clock;
  log: Logger;
  runtimeConfig: RuntimeConfigOptions;
  /**
   * The runtime's name from CRI Version (runtimeName), asked once at start: container IDs in pod
   * statuses are `<runtimeName>://<id>`. "containerd" when not given.
   */
  runtimeName?: string;
  /** The kubelet's syncFrequency: every pod is synced at least this often (1 min, plus 0–50% jitter). */
  syncFrequencyMs?: number;
  housekeepingPeriodMs?: number;
  node: () => Promise<Node>;
  /** Where pod statuses go: the API server's status manager in a cluster; nowhere by default. */
  statusManager?: PodStatusManager;
  /** The admission chain every new pod passes (max pods, …); none by default. */
  admitHandlers?: PodAdmitHandler[];
  /** Makes the prober, given the listener of its result changes; the ProbeManager by default. */
  prober?: (onUpdate: (u: ProbeUpdate) => void, observe: (o: ProbeObservation) => void) => PodProber;
  /** Makes the pod workers; the PodWorkerPool by default. */
  podWorkers?: (o: PodWorkerPoolOptions) => PodWorkers;
  /** Jitter source of the resync; Math.random by default. */
  random?: () => number;
  hooks?: AgentHooks;
  /** Where the agent keeps what must outlive it (container readiness); in memory only without. */
  stateDir?: string;
  /**
   * Where the configMaps, secrets and tokens pods use come from: the API server, --local-objects, or
   * none (NoObjectSource, the kubelet's rule for static pods) by default. The caller owns and closes it.
   */
  objects?: ObjectSource;
  /**
   * The services containers get service-link variables from (KUBERNETES_SERVICE_HOST, …): the API
   * server's (ApiServiceLister) with a kubeconfig, none (NoServiceLister, as the kubelet without a
   * kube client) by default. The caller owns and closes it.
   */
  services?: ServiceLister;
  /** Volume plugins tried before the node's own (src/volume/plugins.ts); tests add fakes here. */
  volumePlugins?: VolumePlugin[];
  /** Mounts and unmounts tmpfs volumes: util-linux mount/umount by default; a fake in tests. */
  mounter?: Mounter;
  /** The host's mount table (/proc/self/mountinfo through the mounter) by default; a fake in tests. */
  mountTable?: MountTable;
  /** How the eviction manager measures a volume folder: a walk of it (WalkDiskUsage) by default. */
  diskUsage?: DiskUsage;
  /** The kubelet's evictionMonitoringPeriod, 10 s by default (src/eviction); shorter in e2e tests. */
  evictionMonitoringPeriodMs?: number;
  /**
   * Makes the eviction manager's loop from what it acts on and its local-storage part: the node
   * makes the EvictionManager (thresholds over the stats provider); the local-storage check alone by default.
   */
  evictionManager?: (target: EvictionTarget, localStorage: LocalStorageEviction) => EvictionLoop;
  /**
   * Container GC (src/eviction/container-gc.ts): the runtime it lists and removes through (the CriClient),
   * the kubelet's policy (DEFAULT_CONTAINER_GC_POLICY by default) and period (1 min). Without it no dead
   * container or sandbox is collected.
   */
  containerGC?: { runtime: ContainerGCRuntime; policy?: ContainerGCPolicy; periodMs?: number; onEvent?(e: GCEvent): void };
  /** Loops that run beside the sync loop for as long as the agent (image GC, container log rotation). */
  backgroundLoops?: { run(signal: AbortSignal): Promise<void> }[];
  /** The node's event recorder (src/events): pod, container and probe events; none by default. */
  events?: EventRecorder;
}

/** The eviction manager as the agent runs it: a loop of its own until the signal aborts. */
export interface EvictionLoop {
  run(signal: AbortSignal): Promise<void>;
  /**
   * The node's pressure conditions as last observed; undefined until a cycle has measured the node.
   * Without it there is never any pressure to be relieved of (the local-storage check alone).
   */
  observedPressure?(): ReadonlySet<PressureCondition> | undefined;
}

/** How long a starting agent waits for its first Node before its sources start (see run()). */
export const NODE_WAIT_MS = 10_000;

/** How long a stopping agent waits for syncs and probes in flight. */
export const SHUTDOWN_GRACE_MS = 10_000;
