// The one place the Agent's machinery is made from its options: the prober, the container notes, the
// volume manager, the PodSyncer (one options object), the pod workers, the API statuses, the active
// pods and evictions, the eviction loop, housekeeping and container GC — each with the defaults a test
// gets when the node (node.ts) passes none. The Agent gives back only the four things its own loop
// does: a probe update goes into the sync loop, the Node's allocatable, a pod's sync, a worker's step.
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { ContainerGC, DEFAULT_CONTAINER_GC_POLICY } from "../gc";
import { LocalStorageEviction, type EvictionTarget } from "../eviction";
import { NO_EVENTS, type EventRecorder } from "../events";
import type { PodStatus } from "../pleg";
import type { CriClient } from "../cri";
import { type PodProber, ProbeManager, type ProbeObservation, type ProbeUpdate } from "../prober";
import { WalkDiskUsage } from "../stats";
import { NO_STATUS_MANAGER, type PodStatusManager, ResizeConditions } from "../status";
import { apiTime } from "../util";
import { nodeVolumePlugins, ProcMountTable, SystemMounter, VolumeManager } from "../volume";
import { NoObjectSource, NoServiceLister, type ObjectSource, type ResourceList } from "../objects";
import { ActiveDeadline } from "./active-deadline";
import { ActivePods } from "./active-pods";
import type { AgentOptions, EvictionLoop } from "./agent-options";
import { ApiStatuses } from "./api-statuses";
import { Backoff } from "./backoff";
import { ContainerNotes } from "./container-notes";
import { EvictedPods } from "./evicted-pods";
import { Housekeeping } from "./housekeeping";
import { PodSyncer, type SyncResult } from "./pod-sync";
import { PodWorkerPool, type PodWorkerPoolOptions, type PodWorkers, type PodWorkerView } from "./pod-workers";
import { RuntimeState } from "./runtime-state";
import { AllocationManager } from "./allocation-manager";
import { PodResourceState } from "./resource-state";
import { TerminationMessages } from "./termination-message";

/** What the parts call back into the Agent for. */
export interface AgentCallbacks {
  /** A probe result changed: into the sync loop. */
  onProbeUpdate(update: ProbeUpdate): void;
  /** The node's allocatable, as last reported. */
  nodeAllocatable(): Promise<ResourceList | undefined>;
  /** One sync of a running pod (the Agent's, which checks the active deadline first). */
  syncPod(pod: Pod, status: PodStatus | undefined): Promise<SyncResult>;
  /** After every worker step. */
  afterSync(s: PodWorkerView, result: SyncResult | undefined): void;
  /** Before a worker's sync or termination acts: the status of what the runtime has now is published. */
  beforeSync(s: PodWorkerView): void;
  /** The allocation manager wants the pod synced again (its allocation or a resize condition changed). */
  resyncPod(pod: Pod): void;
}

export interface AgentParts {
  notes: ContainerNotes;
  evicted: EvictedPods;
  events: EventRecorder;
  probes: PodProber;
  crashBackoff: Backoff;
  imageBackoff: Backoff;
  objects: ObjectSource;
  /** What the runtime last said of itself (its network's readiness gates the pod syncs). */
  runtimeState: RuntimeState;
  volumes: VolumeManager;
  deadlines: ActiveDeadline;
  terminationMessages: TerminationMessages;
  syncer: PodSyncer;
  workers: PodWorkers;
  statuses: ApiStatuses;
  active: ActivePods;
  eviction: EvictionLoop;
  housekeeping: Housekeeping;
  /** The collector of dead containers, sandboxes and pod log folders; absent without options.containerGC. */
  containerGC: ContainerGC | undefined;
  statusManager: PodStatusManager;
  /** The resize conditions of each pod (src/status) and the node's allocations (allocation-manager.ts). */
  resizeConditions: ResizeConditions;
  allocation: AllocationManager;
}

export function buildAgentParts(o: AgentOptions, agent: AgentCallbacks): AgentParts {
  const { clock, log } = o;
  const notes = new ContainerNotes(o.stateDir ? join(o.stateDir, "container-notes.json") : undefined, log);
  const evicted = new EvictedPods(o.stateDir ? join(o.stateDir, "evicted-pods.json") : undefined, log);
  const events = o.events ?? NO_EVENTS;
  const onProbeUpdate = (update: ProbeUpdate) => agent.onProbeUpdate(update);
  const observe = (ob: ProbeObservation) => o.hooks?.probeObserved?.(ob);
  const probes = o.prober ? o.prober(onProbeUpdate, observe) : new ProbeManager({ runner: o.runtime, clock, log, onUpdate: onProbeUpdate, observe, events });
  const crashBackoff = new Backoff(clock);
  const imageBackoff = new Backoff(clock);
  const objects = o.objects ?? new NoObjectSource();
  const mounter = o.mounter ?? new SystemMounter();
  // The network readiness gate of pod syncs: the runtime's own Status, asked every 5 s (runtime-state.ts).
  const runtimeState = new RuntimeState({ status: () => o.runtime.status(), clock, log });
  const config = {
    ...o.runtimeConfig,
    nodeAllocatable: o.runtimeConfig.nodeAllocatable ?? (() => agent.nodeAllocatable()),
    networkErrors: o.runtimeConfig.networkErrors ?? (() => runtimeState.networkErrors()),
  };
  const volumes = new VolumeManager({
    podsDir: o.runtimeConfig.podsDir,
    plugins: [
      ...(o.volumePlugins ?? []),
      ...nodeVolumePlugins({ podsDir: o.runtimeConfig.podsDir, objects, mounter, clock, nodeAllocatable: config.nodeAllocatable, log }),
    ],
    objects,
    mounts: o.mountTable ?? new ProcMountTable(mounter),
    clock,
    log,
  });
  const terminationMessages = new TerminationMessages(o.runtimeConfig);
  const syncer = new PodSyncer({
    runtime: o.runtime,
    clock,
    crashBackoff,
    imageBackoff,
    config,
    log,
    volumes,
    onContainerRestart: (pod, c) => o.hooks?.containerRestarted?.(pod, c),
    objects,
    services: o.services ?? new NoServiceLister(),
    events,
    actuated: new PodResourceState(o.stateDir ? join(o.stateDir, "actuated_pods_state.json") : undefined, log),
    memoryUsage: memoryUsage(o.runtime),
  });
  const resizeConditions = new ResizeConditions(() => apiTime(clock.now()));
  const workerOptions: PodWorkerPoolOptions = {
    actions: {
      syncPod: (pod, st) => agent.syncPod(pod, st),
      killPod: (pod, st, grace) => syncer.killPod(pod, st, grace),
      removePod: (uid, st) => syncer.removePod(uid, st),
      relistPod: (uid) => o.pleg.requestPodRelist(uid, undefined, o.pleg.mode ?? "generic"),
    },
    cache: o.pleg.cache,
    clock,
    log,
    resyncIntervalMs: o.syncFrequencyMs,
    random: o.random,
    onSynced: (s, r) => agent.afterSync(s, r),
    beforeSync: (s) => agent.beforeSync(s),
    fromAllocation: (pod) => allocation.fromAllocation(pod),
  };
  const workers = o.podWorkers ? o.podWorkers(workerOptions) : new PodWorkerPool(workerOptions);
  const statuses = new ApiStatuses({
    runtimeName: o.runtimeName ?? "containerd",
    cache: o.pleg.cache,
    probes,
    notes,
    terminationMessages,
    postStartRunning: (id) => syncer.postStartRunning(id),
    runtimeConfig: o.runtimeConfig,
    clock,
    resize: { conditions: resizeConditions, actuated: (uid, name) => syncer.resizer.actuatedOf(uid)(name), version: () => syncer.resizer.version },
  });
  const active = new ActivePods({ workers, lastStatus: (s) => statuses.last(s), admitHandlers: o.admitHandlers ?? [], events, evicted });
  const allocation: AllocationManager = new AllocationManager({
    allocated: new PodResourceState(o.stateDir ? join(o.stateDir, "allocated_pods_state.json") : undefined, log),
    conditions: resizeConditions,
    admitResize: (pod) => active.canAdmitPod(pod, { dryRun: true }),
    syncPod: (pod) => agent.resyncPod(pod),
    events,
    clock,
    log,
  });
  const evictionTarget: EvictionTarget = {
    activePods: () => active.activePods(),
    evictPod: (pod, status, grace) => active.evictPod(pod, status, grace),
    podCleanedUp: (pod) => active.podCleanedUp(pod),
  };
  const localStorage = new LocalStorageEviction({
    podsDir: o.runtimeConfig.podsDir,
    usage: o.diskUsage ?? new WalkDiskUsage(),
    target: evictionTarget,
    clock,
    log,
    monitoringPeriodMs: o.evictionMonitoringPeriodMs,
    cluster: o.runtimeConfig.cluster ?? false,
  });
  const eviction = o.evictionManager ? o.evictionManager(evictionTarget, localStorage) : localStorage;
  const housekeeping = new Housekeeping({
    config: o.config,
    pleg: o.pleg,
    sources: o.sources,
    workers,
    syncer,
    volumes,
    probes,
    notes,
    terminationMessages,
    evicted,
    allocation,
    eviction,
    crashBackoff,
    imageBackoff,
    admission: active,
    events,
    hooks: o.hooks,
    log,
    startedAt: clock.now(),
  });
  const containerGC = o.containerGC
    ? new ContainerGC({
        runtime: o.containerGC.runtime,
        pods: housekeeping.podStateProvider(),
        policy: o.containerGC.policy ?? DEFAULT_CONTAINER_GC_POLICY,
        podLogsRoot: o.runtimeConfig.podLogsRoot,
        clock,
        log,
        periodMs: o.containerGC.periodMs,
        onEvent: o.containerGC.onEvent,
      })
    : undefined;
  return {
    notes,
    evicted,
    events,
    probes,
    crashBackoff,
    imageBackoff,
    objects,
    runtimeState,
    volumes,
    deadlines: new ActiveDeadline(clock),
    terminationMessages,
    syncer,
    workers,
    statuses,
    active,
    eviction,
    housekeeping,
    containerGC,
    statusManager: o.statusManager ?? NO_STATUS_MANAGER,
    resizeConditions,
    allocation,
  };
}

/** A running container's memory usage from CRI ContainerStats, when the runtime can tell it. */
function memoryUsage(runtime: AgentOptions["runtime"]): ((id: string) => Promise<number | undefined>) | undefined {
  const r = runtime as Partial<Pick<CriClient, "containerStats">>;
  if (typeof r.containerStats !== "function") return undefined;
  const stats = r.containerStats.bind(runtime);
  return async (id) => {
    const s = await stats(id);
    const v = s?.memory?.usageBytes?.value;
    return v === undefined ? undefined : Number(v);
  };
}
