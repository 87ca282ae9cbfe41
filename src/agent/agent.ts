// Agent: the node's pod machinery, the kubelet's Kubelet object. It owns the pod workers, the pod
// syncer, the prober and the container notes, and it is the sync loop's SyncHandler: sources feed
// PodConfig, PodConfig's updates and the PLEG's events and the prober's results go through the one
// SyncLoop (sync-loop.ts), and each handler below turns them into pod worker updates. The HTTP server
// sees the agent through pods(), node() and healthChecks() (its AgentView); the cluster node is one of
// its sources and its PodStatusManager; node.ts (the wiring) also asks canAdmitPod() for pushed pods.
//
// Where the node's managers plug in: admission is the admitHandlers chain run on every ADD
// (handlePodAdditions); statuses leave through the PodStatusManager; a pod's runtime work is the
// PodSyncer behind the workers' PodSyncActions, which waits on the VolumeManager (src/volume) before it
// creates anything; an ObjectSource's changes come through the loop (handleObjectChange); housekeeping
// (handlePodCleanups) is where orphaned pods and pod folders are handled. The eviction manager
// (src/eviction) runs a loop of its own beside the sync loop, as the kubelet's does (measuring volumes
// must not hold up syncs): it sees the active pods and evicts through the pod workers' evictPod. So do
// the garbage collectors (src/eviction, the kubelet's StartGarbageCollection): container GC, the one
// owner of the policy on dead containers and sandboxes, asks the agent which pods are gone
// (PodStateProvider); image GC and log rotation need only the runtime.
import { join } from "node:path";
import type { Node, Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { admitPod, type PodAdmitHandler, type PodAdmitResult } from "../admission";
import { isStaticPod, isTerminalPhase, podKey, podRef } from "../api";
import type { PodConfig, SourceReport } from "../config/pod-config";
import type { PodSource } from "../config/types";
import type { PodLifecycleEventGenerator } from "../pleg/types";
import { ProbeManager } from "../prober/manager";
import type { PodProber, ProbeObservation, ProbeSeed, ProbeUpdate, RunningContainer } from "../prober/types";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { apiTime } from "../util/time";
import { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, LocalStorageEviction, type EvictionStatus, type EvictionTarget } from "../eviction/local-storage";
import { ContainerGC, DEFAULT_CONTAINER_GC_POLICY, type ContainerGCPolicy, type ContainerGCRuntime, type PodStateProvider } from "../eviction/container-gc";
import type { GCEvent } from "../eviction/image-gc-manager";
import type { PressureCondition } from "../eviction/signals";
import { WalkDiskUsage, type DiskUsage } from "../stats/disk-usage";
import { errorMessage } from "../util/errors";
import { SystemMounter, type Mounter } from "../volume/mount";
import { nodeVolumePlugins } from "../volume/plugins";
import { ProcMountTable } from "../volume/mount-table";
import { NoObjectSource } from "../volume/no-object-source";
import { NoServiceLister } from "../volume/no-service-lister";
import { usesObject } from "../volume/object-refs";
import type { MountTable, ObjectRef, ObjectSource, ServiceLister, VolumePlugin } from "../volume/types";
import { VolumeManager } from "../volume/volume-manager";
import type { ResourceList } from "../volume/downward-api";
import { podReference } from "../events/object-ref";
import { NO_EVENTS, type EventRecorder } from "../events/types";
import { Backoff } from "./backoff";
import { ActiveDeadline } from "./active-deadline";
import { TerminationMessages } from "./termination-message";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS } from "../api/defaults";
import { ContainerNotes } from "./container-notes";
import { EVICTION_RECOVERED_REASON, EvictedPods, evictionRecoveredMessage } from "./evicted-pods";
import type { CriClient } from "../cri/client";
import { PodSyncer, type SyncResult, type SyncRuntime } from "./pod-sync";
import { isSidecar } from "./pod-actions";
import { RuntimeState } from "./runtime-state";
import { PodWorkerPool, SYNC_ERROR_BACKOFF_MS, type PodWorkerPoolOptions, type PodWorkers, type PodWorkerState } from "./pod-workers";
import type { RuntimeConfigOptions } from "./runtime-config";
import { computeApiPodStatus, qosClass, type Waiting } from "../status";
import { NO_STATUS_MANAGER, type PodStatusManager } from "../status";
import { SyncLoop, type SyncHandler } from "./sync-loop";

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
  afterHousekeeping?(agent: Agent): void;
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

export class Agent implements SyncHandler {
  readonly workers: PodWorkers;
  readonly loop: SyncLoop;
  private readonly syncer: PodSyncer;
  /** What the runtime last said of itself (its network's readiness gates the pod syncs). */
  readonly runtimeState: RuntimeState;
  private readonly probes: PodProber;
  private readonly notes: ContainerNotes;
  private readonly evicted: EvictedPods;
  private readonly startedAt: number;
  private readonly runtimeName: string;
  private readonly crashBackoff: Backoff;
  private readonly imageBackoff: Backoff;
  private readonly statusManager: PodStatusManager;
  readonly volumes: VolumeManager;
  readonly eviction: EvictionLoop;
  /** The collector of dead containers, sandboxes and pod log folders; absent without options.containerGC. */
  readonly containerGC: ContainerGC | undefined;
  private readonly objects: ObjectSource;
  private readonly events: EventRecorder;
  private allSourcesSeen = false;
  /** The node's status.allocatable when node() last built it. */
  private allocatable: ResourceList | undefined;
  /** The Node node() last built: what admission checks pods against (lastNode()). */
  private builtNode: Node | undefined;
  private readonly started = new Set<string>();
  private readonly deadlines: ActiveDeadline;
  private readonly terminationMessages: TerminationMessages;
  /** Each worker's last computed API status and what it was computed from (see apiStatus). */
  private readonly statusMemo = new WeakMap<PodWorkerState, { inputs: unknown[]; status: ApiPodStatus }>();
  /** Each worker's last answer to pods(). */
  private readonly podMemo = new WeakMap<PodWorkerState, { spec: Pod; pod: Pod }>();
  /** Why an evicted pod whose pressure is gone was not admitted again, by UID (said once per reason). */
  private readonly recoveryRefusals = new Map<string, string>();
  /** Who waits for a pod's termination (terminatePod), by UID: told in afterSync. */
  private readonly terminationWaiters = new Map<string, (() => void)[]>();

  constructor(private readonly o: AgentOptions) {
    this.startedAt = o.clock.now();
    this.runtimeName = o.runtimeName ?? "containerd";
    this.statusManager = o.statusManager ?? NO_STATUS_MANAGER;
    this.notes = new ContainerNotes(o.stateDir ? join(o.stateDir, "container-notes.json") : undefined, o.log);
    this.evicted = new EvictedPods(o.stateDir ? join(o.stateDir, "evicted-pods.json") : undefined, o.log);
    const onProbeUpdate = (update: ProbeUpdate) => this.loop.push({ kind: "probe", update });
    const observe = (ob: ProbeObservation) => o.hooks?.probeObserved?.(ob);
    this.events = o.events ?? NO_EVENTS;
    this.probes = o.prober ? o.prober(onProbeUpdate, observe) : new ProbeManager({ runner: o.runtime, clock: o.clock, log: o.log, onUpdate: onProbeUpdate, observe, events: this.events });
    this.crashBackoff = new Backoff(o.clock);
    this.imageBackoff = new Backoff(o.clock);
    this.objects = o.objects ?? new NoObjectSource();
    const mounter = o.mounter ?? new SystemMounter();
    // The network readiness gate of pod syncs: the runtime's own Status, asked every 5 s (runtime-state.ts).
    this.runtimeState = new RuntimeState({ status: () => o.runtime.status(), clock: o.clock, log: o.log });
    const runtimeConfig = {
      ...o.runtimeConfig,
      nodeAllocatable: o.runtimeConfig.nodeAllocatable ?? (() => this.nodeAllocatable()),
      networkErrors: o.runtimeConfig.networkErrors ?? (() => this.runtimeState.networkErrors()),
    };
    this.volumes = new VolumeManager({
      podsDir: o.runtimeConfig.podsDir,
      plugins: [
        ...(o.volumePlugins ?? []),
        ...nodeVolumePlugins({ podsDir: o.runtimeConfig.podsDir, objects: this.objects, mounter, clock: o.clock, nodeAllocatable: runtimeConfig.nodeAllocatable }),
      ],
      objects: this.objects,
      mounts: o.mountTable ?? new ProcMountTable(mounter),
      clock: o.clock,
      log: o.log,
    });
    this.deadlines = new ActiveDeadline(o.clock);
    this.terminationMessages = new TerminationMessages(o.runtimeConfig);
    this.syncer = new PodSyncer(o.runtime, o.clock, this.crashBackoff, this.imageBackoff, runtimeConfig, o.log, this.volumes, (pod, c) => o.hooks?.containerRestarted?.(pod, c), undefined, this.objects, o.services ?? new NoServiceLister(), this.events);
    const workerOptions: PodWorkerPoolOptions = {
      actions: {
        syncPod: (pod, st) => this.syncPod(pod, st),
        killPod: (pod, st, grace) => this.syncer.killPod(pod, st, grace),
        removePod: (uid, st) => this.syncer.removePod(uid, st),
        relistPod: (uid) => o.pleg.requestPodRelist(uid, undefined, o.pleg.mode ?? "generic"),
      },
      cache: o.pleg.cache,
      clock: o.clock,
      log: o.log,
      resyncIntervalMs: o.syncFrequencyMs,
      random: o.random,
      onSynced: (s, r) => this.afterSync(s, r),
    };
    this.workers = o.podWorkers ? o.podWorkers(workerOptions) : new PodWorkerPool(workerOptions);
    const evictionTarget: EvictionTarget = {
      activePods: () => this.activePods(),
      evictPod: (pod, status, grace) => this.evictPod(pod, status, grace),
      podCleanedUp: (pod) => this.podCleanedUp(pod),
    };
    const localStorage = new LocalStorageEviction({
      podsDir: o.runtimeConfig.podsDir,
      usage: o.diskUsage ?? new WalkDiskUsage(),
      target: evictionTarget,
      clock: o.clock,
      log: o.log,
      monitoringPeriodMs: o.evictionMonitoringPeriodMs,
      cluster: o.runtimeConfig.cluster ?? false,
    });
    this.eviction = o.evictionManager ? o.evictionManager(evictionTarget, localStorage) : localStorage;
    this.containerGC = o.containerGC
      ? new ContainerGC({
          runtime: o.containerGC.runtime,
          pods: this.podStateProvider(),
          policy: o.containerGC.policy ?? DEFAULT_CONTAINER_GC_POLICY,
          podLogsRoot: o.runtimeConfig.podLogsRoot,
          clock: o.clock,
          log: o.log,
          periodMs: o.containerGC.periodMs,
          onEvent: o.containerGC.onEvent,
        })
      : undefined;
    this.loop = new SyncLoop({ handler: this, duePods: () => this.workers.getDuePods(), clock: o.clock, log: o.log, housekeepingPeriodMs: o.housekeepingPeriodMs });
  }

  /** Starts the sources and runs the sync loop until the signal aborts. Pods keep running when it stops. */
  async run(signal: AbortSignal): Promise<void> {
    const { config, pleg, clock, sources } = this.o;
    const unsubscribe = config.onUpdate((update) => this.loop.push({ kind: "config", update }));
    const unsubscribeObjects = this.objects.onChange((ref) => this.loop.push({ kind: "object", ref }));
    for (const s of sources) {
      s.start((report) => {
        config.apply(report);
        this.o.hooks?.sourceReported?.(report);
      });
    }
    const plegDone = pleg.run(signal).catch((err) => this.o.log.error(`PLEG stopped: ${errorMessage(err)}`));
    const runtimeStateDone = this.runtimeState.run(signal);
    const evictionDone = this.eviction.run(signal);
    const gcDone = Promise.all([this.containerGC?.run(signal), ...(this.o.backgroundLoops ?? []).map((l) => l.run(signal))]);
    await this.firstNode(signal);
    const loopDone = signal.aborted ? Promise.resolve() : this.loop.run(signal, pleg.events);
    await loopDone;
    unsubscribe();
    unsubscribeObjects();
    // In-flight work gets a bounded time to finish: a runtime that hangs (an overloaded containerd can
    // leave a call open for minutes) must not keep the agent from stopping. The pods run on either way,
    // and whatever a sync left half done is adopted by the next start, as after kill -9.
    const drained = Promise.all([plegDone, runtimeStateDone, evictionDone, gcDone, this.workers.idle(), this.probes.stop()]).then(() => true);
    let timer: Timer | undefined;
    const late = new Promise<false>((resolve) => (timer = clock.setTimer(SHUTDOWN_GRACE_MS, () => resolve(false))));
    const finished = await Promise.race([drained, late]);
    timer?.cancel();
    if (!finished) this.o.log.warn(`stopping with work still in flight after ${SHUTDOWN_GRACE_MS / 1000}s (the runtime is not answering); the next start adopts what runs`);
    this.notes.flush();
    // Sources stop last: a cluster node's status manager may still write what the drain reported.
    await Promise.all(sources.map(async (s) => s.stop()));
  }

  /**
   * Admission needs the Node (its labels, taints, allocatable) before the first pod is admitted: it is
   * built once before the sync loop handles anything (the sources' first pods wait in its queue), as
   * the kubelet has its initial node before its sync loop runs. A runtime that does not answer (the
   * Node asks it for its version and images) holds the loop up for NODE_WAIT_MS at most; pods added
   * before the Node exists are refused (InvalidNodeInfo), as the kubelet's predicate handler refuses them.
   */
  private async firstNode(signal: AbortSignal): Promise<void> {
    const built = this.node().then(
      () => true,
      (err) => this.o.log.warn(`the node cannot be built (${errorMessage(err)}): new pods are refused (InvalidNodeInfo) until it can`),
    );
    const stopWaiting = new AbortController();
    const onAbort = () => stopWaiting.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const waited = this.o.clock.sleep(NODE_WAIT_MS, stopWaiting.signal).then(() => false, () => false);
    const inTime = await Promise.race([built, waited]);
    stopWaiting.abort();
    signal.removeEventListener("abort", onAbort);
    if (inTime === false && !this.builtNode && !signal.aborted) this.o.log.warn(`the node is not built after ${NODE_WAIT_MS / 1000}s (the runtime is not answering): new pods are refused (InvalidNodeInfo) until it is`);
  }

  // ---------------------------------------------------------------------------------------------
  // SyncHandler: what each kind of sync loop event does (see SyncLoop.syncLoopIteration).

  handlePodAdditions(pods: Pod[]): void {
    // The kubelet admits new pods oldest first, so that a newer pod never takes an older one's place.
    const ordered = [...pods].sort((a, b) => Date.parse(a.metadata?.creationTimestamp ?? "") - Date.parse(b.metadata?.creationTimestamp ?? "") || 0);
    for (const pod of ordered) {
      const known = this.workers.get(podRef(pod).uid) !== undefined;
      const evicted = known ? undefined : this.evicted.get(podRef(pod).uid);
      if (evicted) {
        // Evicted before the agent restarted, and its source still has it: it stays Failed, never
        // started (its containers, already stopped, are stopped again at once if one still runs).
        // An eviction for node pressure is undone once the pressure is observed gone (recoverEvictedPods).
        this.workers.updatePod({ type: "create", pod });
        this.workers.evictPod(podRef(pod).uid, { status: { reason: evicted.reason, message: evicted.message }, gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS });
        continue;
      }
      // Admission is for pods that would start: a known UID (a restart request) was admitted before,
      // and a pod being deleted or already finished only terminates.
      if (!known && !pod.metadata?.deletionTimestamp && !isTerminalPhase(pod.status?.phase)) {
        const r = this.canAdmitPod(pod);
        if (!r.admit) {
          // As the kubelet's rejectPod: a Warning event with the handler's reason and message, then
          // phase Failed, the handler's reason, its message prefixed.
          this.events.event(podReference(pod), "Warning", r.reason, r.message);
          this.workers.reject(pod, { reason: r.reason, message: `Pod was rejected: ${r.message}` });
          continue;
        }
      }
      this.workers.updatePod({ type: "create", pod });
    }
  }

  handlePodUpdates(pods: Pod[]): void {
    for (const pod of pods) this.workers.updatePod({ type: "update", pod });
  }

  handlePodDeletions(pods: Pod[]): void {
    for (const pod of pods) this.workers.updatePod({ type: "kill", pod });
  }

  handlePodRemoves(pods: Pod[]): void {
    for (const pod of pods) this.workers.updatePod({ type: "kill", pod, remove: true });
  }

  handlePodReconcile(pods: Pod[]): void {
    for (const pod of pods) {
      this.workers.reconcile(pod);
      // A controller may have set a readiness gate's condition: the Ready condition is computed again
      // (the kubelet's NeedToReconcilePodReadiness, which then syncs the pod).
      if (pod.spec?.readinessGates?.length) this.workers.syncPod(podRef(pod).uid);
    }
  }

  handlePodSyncs(uids: string[]): void {
    for (const uid of uids) this.workers.syncPod(uid);
  }

  handleProbeResult(u: ProbeUpdate): void {
    if (u.result === "failure" && (u.probeType === "liveness" || u.probeType === "startup")) {
      const spec = this.workers.get(u.podUid)?.pod.spec;
      // A sidecar is restarted whatever the pod's restartPolicy (KEP-753).
      const sidecar = spec?.initContainers?.some((c) => c.name === u.containerName && isSidecar(c)) ?? false;
      const restarted = sidecar || (spec?.restartPolicy ?? "Always") !== "Never";
      const message = `Container ${u.containerName} failed ${u.probeType} probe, will ${restarted ? "" : "not "}be restarted: ${u.reason}`;
      this.notes.update(u.containerId, { killMessage: message });
      this.o.log.info(`pod ${u.namespace}/${u.podName}: ${message}`);
    } else if (u.probeType === "readiness") {
      this.o.log.info(`pod ${u.namespace}/${u.podName}: container ${u.containerName} is ${u.result === "success" ? "ready" : `not ready: ${u.reason}`}`);
    }
    this.workers.syncPod(u.podUid);
  }

  handleObjectChange(ref: ObjectRef): void {
    const uids = new Set(this.volumes.objectChanged(ref));
    for (const s of this.workers.states()) if (s.phase === "syncing" && usesObject(s.pod, ref)) uids.add(s.uid);
    if (uids.size) this.o.log.info(`${ref.kind.toLowerCase()} ${ref.namespace}/${ref.name} changed: syncing the ${uids.size} pod(s) that use it`);
    for (const uid of uids) this.workers.syncPod(uid);
  }

  handlePodCleanups(): void {
    const { config, pleg, sources } = this.o;
    const names = sources.map((s) => s.name);
    const known = new Set(this.workers.states().map((s) => s.uid));
    if (config.seenAllSources(names)) {
      if (!this.allSourcesSeen) {
        this.allSourcesSeen = true;
        this.o.log.info(`every pod source has been seen (${names.join(", ")}): runtime pods that none of them has are removed from now on`);
      }
      for (const uid of pleg.cache.uids()) {
        const st = pleg.cache.get(uid)?.status;
        if (known.has(uid) || !st) continue;
        if (st.containerStatuses.length === 0 && st.sandboxStatuses.length === 0) continue;
        this.o.log.info(`pod ${st.namespace}/${st.name} (${uid.slice(0, 8)}) runs but no source has it: removing it`);
        const orphan: Pod = { metadata: { name: st.name, namespace: st.namespace, uid }, spec: { containers: [] } };
        this.workers.updatePod({ type: "kill", pod: orphan, remove: true });
      }
      this.evicted.prune(known);
      // Pod folders (and volume mounts) of pods nothing knows any more: gone while the agent was down
      // (kill -9), or left by a removal cut short. Runtime orphans go through the removal above first.
      // Asked live (not this pass's snapshot): the manager asks again just before it tears a pod down.
      void this.volumes.cleanupOrphans((uid) => this.workers.get(uid) !== undefined || pleg.cache.get(uid) !== undefined);
      // And their pod cgroups (the kubelet's cleanupOrphanedPodCgroups); the QoS shares follow the pods.
      this.syncer.cgroupHousekeeping(new Set([...known, ...pleg.cache.uids()]));
    }
    this.recoverEvictedPods();
    this.probes.cleanupPods(known);
    this.pruneNotes();
    this.crashBackoff.gc();
    this.imageBackoff.gc();
    this.o.hooks?.afterHousekeeping?.(this);
  }

  /**
   * A file, URL or pushed pod evicted for node pressure starts again once that pressure is gone: the
   * eviction manager has measured the node and no longer reports the condition (which it keeps for
   * --eviction-pressure-transition-period after the threshold was last met), and the pod passes
   * admission again (another pressure, or a pod that took its place, keeps it Failed until the next
   * pass). A Normal EvictionRecovered event says so. A departure from the kubelet, whose static pods
   * are critical (never evicted) and whose evicted API pods are their controllers' to replace: a
   * standalone node must not lose a service for good to a spike. API pods are never restarted here.
   * Also after a restart: the record (evicted-pods.json) keeps the condition.
   */
  private recoverEvictedPods(): void {
    const pressure = this.eviction.observedPressure?.();
    if (!pressure) return;
    for (const s of this.workers.states()) {
      if (s.phase !== "terminated" || s.removed || s.restartRequested || !isStaticPod(s.pod)) continue;
      const record = this.evicted.get(s.uid);
      if (!record?.condition || pressure.has(record.condition)) continue;
      const admitted = this.canAdmitPod(s.pod);
      if (!admitted.admit) {
        const why = `${admitted.reason}: ${admitted.message}`;
        if (this.recoveryRefusals.get(s.uid) !== why) this.o.log.info(`pod ${podKey(s.pod)}: its ${record.condition} is gone, but it is not admitted again yet (${why})`);
        this.recoveryRefusals.set(s.uid, why);
        continue;
      }
      this.recoveryRefusals.delete(s.uid);
      if (!this.workers.restartPod(s.uid)) continue;
      this.evicted.delete(s.uid);
      const message = evictionRecoveredMessage(record.condition);
      this.o.log.info(`pod ${podKey(s.pod)}: ${message}`);
      this.events.event(podReference(s.pod), "Normal", EVICTION_RECOVERED_REASON, message);
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * The admission chain over the pods the node runs now (the kubelet's canAdmitPod over its active
   * pods). dryRun: only the answer (the push source's check), no preemption.
   */
  canAdmitPod(pod: Pod, o: { dryRun?: boolean } = {}): PodAdmitResult {
    const uid = podRef(pod).uid;
    const name = podKey(pod);
    // Active pods: what the sources still have and has not finished. A pod being replaced under the
    // same name (an edited static pod, a re-pushed pod) does not count against its replacement.
    const otherPods = this.workers
      .states()
      .filter((s) => s.uid !== uid && s.fullName !== name && !s.removed && s.phase !== "terminated" && !isTerminalPhase(s.apiStatus?.phase))
      .map((s) => s.pod);
    return admitPod(this.o.admitHandlers ?? [], { pod, otherPods, dryRun: o.dryRun });
  }

  /**
   * The pods the node runs now, as the kubelet's GetActivePods sees them: the eviction manager's
   * candidates. Not a pod being deleted or terminating, not one that has finished (a restartPolicy
   * Never pod whose containers have all exited), not one waiting for its previous instance to end.
   */
  activePods(): Pod[] {
    return this.workers
      .states()
      .filter((s) => s.phase === "syncing" && !s.removed && !s.restartRequested && !s.pod.metadata?.deletionTimestamp && !isTerminalPhase(s.apiStatus?.phase))
      .map((s) => s.pod);
  }

  /**
   * How the node stops a pod on its own (the eviction manager, critical-pod preemption at admission):
   * through the pod workers, remembered across restarts.
   */
  evictPod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): boolean {
    const uid = podRef(pod).uid;
    if (!this.workers.evictPod(uid, { status, gracePeriodSeconds })) return false;
    // The evictor's Warning event on the pod: Evicted (the eviction manager) or Preempting (critical
    // pod admission), with the status message.
    this.events.event(podReference(pod), "Warning", status.reason, status.message);
    this.evicted.add(uid, status);
    return true;
  }

  /**
   * How a node shutdown stops a pod (src/nodeshutdown; the kubelet's killPodFunc, waited for): through
   * the pod workers' evictPod, so the status sticks (phase Failed, the reason and message), resolving
   * once the pod has terminated; false at once when it is not running. Unlike an eviction it is not
   * remembered across restarts: when the node is back, its static pods start again, as the kubelet's
   * do after a reboot (an API pod stays Failed: the API server has its status).
   */
  terminatePod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): Promise<boolean> {
    const uid = podRef(pod).uid;
    return new Promise((resolve) => {
      const waiters = this.terminationWaiters.get(uid) ?? [];
      waiters.push(() => resolve(true));
      this.terminationWaiters.set(uid, waiters);
      if (!this.workers.evictPod(uid, { status, gracePeriodSeconds })) {
        waiters.pop();
        if (waiters.length === 0) this.terminationWaiters.delete(uid);
        resolve(false);
      }
    });
  }

  /**
   * The kubelet's podResourcesAreReclaimed, as far as the pod workers track it: the pod has finished
   * terminating (its containers stopped) or is gone altogether.
   */
  private podCleanedUp(pod: Pod): boolean {
    const s = this.workers.get(podRef(pod).uid);
    return !s || s.phase === "terminated";
  }

  /** Notes of containers the runtime no longer has go, once a relist since the start has listed it. */
  private pruneNotes(): void {
    const { pleg } = this.o;
    if (pleg.relistStats.lastRelistTime < this.startedAt) return;
    const live = new Set<string>();
    for (const uid of pleg.cache.uids()) for (const c of pleg.cache.get(uid)?.status?.containerStatuses ?? []) live.add(c.id);
    this.notes.prune(live);
    this.terminationMessages.prune(live);
    this.syncer.prunePostStart(live, pleg.relistStats.lastRelistTime);
  }

  /**
   * Which pods container GC may clear (the kubelet's podWorkers.ShouldPodContentBeRemoved and
   * ShouldPodRuntimeBeRemoved, and sourcesReady): a pod the workers know is removable once it has
   * terminated (runtime) and its source removed it (content); an unknown UID is a removed pod once
   * every source has been seen. An evicted pod keeps its dead containers here, unlike the kubelet's
   * (IsEvicted): it stays listed as Failed until its source deletes it, and its status is computed
   * from them.
   */
  private podStateProvider(): PodStateProvider {
    return {
      allSourcesReady: () => this.allSourcesSeen,
      shouldPodContentBeRemoved: (uid) => {
        const s = this.workers.get(uid);
        return s ? s.phase === "terminated" && s.removed : this.allSourcesSeen;
      },
      shouldPodRuntimeBeRemoved: (uid) => {
        const s = this.workers.get(uid);
        return s ? s.phase === "terminated" : this.allSourcesSeen;
      },
    };
  }

  /** Which probe has failed for a running instance, if any: the sync kills it (computePodActions). */
  private probeFailure(containerId: string): "liveness" | "startup" | undefined {
    if (this.probes.result(containerId, "liveness") === "failure") return "liveness";
    if (this.probes.result(containerId, "startup") === "failure") return "startup";
    return undefined;
  }

  /**
   * The newest instance of each container, where it runs: what the probe workers bind to (the
   * prober picks the probed ones, app containers and sidecars; names are unique in a pod).
   */
  private runningContainers(uid: string): RunningContainer[] {
    const out: RunningContainer[] = [];
    const seen = new Set<string>();
    for (const c of this.o.pleg.cache.get(uid)?.status?.containerStatuses ?? []) {
      const name = c.metadata?.name ?? "";
      if (seen.has(name)) continue;
      seen.add(name);
      if (c.state === "CONTAINER_RUNNING") out.push({ name, id: c.id, startedAt: c.startedAt / 1e6 });
    }
    return out;
  }

  /** What the agent last reported for an instance, as the probe workers' starting point after a restart. */
  private probeSeed(containerId: string): ProbeSeed | undefined {
    const n = this.notes.get(containerId);
    return n && (n.ready !== undefined || n.started !== undefined) ? { ready: n.ready, started: n.started } : undefined;
  }

  /**
   * One sync of a running pod. activeDeadlineSeconds first (the kubelet's PodSyncHandlers): a pod past
   * its deadline is evicted (phase Failed, DeadlineExceeded, the spec's grace period) instead of synced;
   * otherwise the sync runs and, when the deadline comes before the worker's next sync would, the worker
   * is due at the deadline itself.
   */
  private async syncPod(pod: Pod, st: Parameters<PodSyncer["syncPod"]>[1]): Promise<SyncResult> {
    const seen = this.workers.get(podRef(pod).uid)?.seen;
    const exceeded = this.deadlines.shouldEvict(pod, seen);
    if (exceeded) {
      this.evictPod(pod, exceeded, pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
      const actions = { killPod: false, createSandbox: false, sandboxId: "", attempt: 0, initContainersToStart: [], containersToStart: [], containersToKill: [] };
      return { actions, waiting: new Map(), changed: false, errors: [] };
    }
    const r = await this.syncer.syncPod(pod, st, (_name, id) => this.probeFailure(id), (name, id) => this.probes.started(podRef(pod).uid, name, id) ?? this.notes.get(id)?.started);
    const at = this.deadlines.deadline(pod, seen);
    if (at !== undefined) {
      const next = r.retryAt ?? this.o.clock.now() + (r.errors.length ? SYNC_ERROR_BACKOFF_MS : (this.o.syncFrequencyMs ?? 60_000));
      if (at < next) r.retryAt = at;
    }
    return r;
  }

  /** After every worker step: probes follow the pod, and the status is computed and reported. */
  private afterSync(s: PodWorkerState, _result: SyncResult | undefined): void {
    const st = this.o.pleg.cache.get(s.uid)?.status;
    // The probe workers follow the runtime's containers (the kubelet's probeManager.AddPod and
    // StartupProbe/Liveness stop on termination, RemovePod when the pod is gone).
    if (s.phase === "syncing") this.probes.syncPod(s.pod, st?.ips[0] ?? "", this.runningContainers(s.uid), (c) => this.probeSeed(c.id));
    else if (s.phase === "terminating") this.probes.stopLivenessAndStartup(s.uid);
    else if (s.phase === "terminated" && s.removed) this.probes.removePod(s.uid);
    s.apiStatus = this.apiStatus(s);
    this.noteReported(s.apiStatus);
    this.statusManager.setPodStatus(s.pod, s.apiStatus);
    if (s.phase === "terminated") {
      this.statusManager.terminatePod(s.pod, s.apiStatus);
      for (const done of this.terminationWaiters.get(s.uid) ?? []) done();
      this.terminationWaiters.delete(s.uid);
    }
    if (!this.started.has(s.uid) && s.phase === "syncing" && s.apiStatus.containerStatuses?.every((c) => c.state?.running) && st) {
      this.started.add(s.uid);
      this.o.hooks?.podStarted?.(s.pod, (this.o.clock.now() - Date.parse(s.seen)) / 1000);
    }
    if (s.phase === "terminated" && s.removed) {
      this.started.delete(s.uid);
      this.evicted.delete(s.uid);
      this.recoveryRefusals.delete(s.uid);
      this.statusManager.removePod(s.pod);
      this.o.hooks?.podRemoved?.(s.pod);
    }
  }

  private apiStatus(s: PodWorkerState): ApiPodStatus {
    // A rejected pod's status is the refusal alone, as the kubelet's rejectPod sets it: no container
    // statuses (nothing was created) and no conditions, so `kubectl get pods` shows the reason.
    if (s.rejected && s.failed) return { phase: "Failed", reason: s.failed.reason, message: s.failed.message, qosClass: qosClass(s.pod) };
    // A pod added again while its previous instance (same UID) terminates: it waits, and says why.
    if (s.restartRequested) {
      const pod = s.restartRequested;
      const why: Waiting = { reason: "ContainerCreating", message: "the pod's previous instance (same UID) is still terminating; it starts again once that has finished" };
      const waiting = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, why]));
      return computeApiPodStatus({ pod, runtimeName: this.runtimeName, runtime: undefined, waiting, hostIP: this.o.runtimeConfig.hostIP, hostIPs: this.o.runtimeConfig.hostIPs, startTime: s.seen, now: apiTime(this.o.clock.now()) });
    }
    const probed = (name: string) => [...(s.pod.spec?.containers ?? []), ...(s.pod.spec?.initContainers ?? [])].find((c) => c.name === name);
    // GET /pods asks for every pod's status each time, and a monitor may ask every few milliseconds:
    // the status is computed again only when something it is computed from has changed — the spec,
    // the sync's results, the cached runtime status, and each instance's probe results and notes.
    // The time only dates a condition that changes, so the same inputs give the same status.
    const runtime = this.o.pleg.cache.get(s.uid)?.status;
    const inputs: unknown[] = [s.pod, s.waiting, s.failed, s.seen, runtime];
    for (const c of runtime?.containerStatuses ?? []) {
      const name = c.metadata?.name ?? "";
      const note = this.notes.get(c.id);
      // A note counts only where the prober has no result (as ready/started below read them): noting
      // what was reported must not itself make the next read a new status.
      inputs.push(this.probes.readiness(s.uid, name, c.id) ?? note?.ready, this.probes.started(s.uid, name, c.id) ?? note?.started, note?.killMessage, this.syncer.postStartRunning(c.id));
    }
    const memo = this.statusMemo.get(s);
    if (memo && memo.status === s.apiStatus && memo.inputs.length === inputs.length && memo.inputs.every((v, i) => v === inputs[i])) return memo.status;
    const status = computeApiPodStatus({
      pod: s.pod,
      runtimeName: this.runtimeName,
      // Until the prober has the pod (just after a restart) the last reported value stands.
      // A container whose postStart hook still runs is neither started nor ready (the kubelet's pod
      // worker reports it only after startContainer, hook included, has returned).
      ready: (name, id) => !this.syncer.postStartRunning(id) && (this.probes.readiness(s.uid, name, id) ?? this.notes.get(id)?.ready ?? !(probed(name)?.readinessProbe || probed(name)?.startupProbe)),
      started: (name, id) => !this.syncer.postStartRunning(id) && (this.probes.started(s.uid, name, id) ?? this.notes.get(id)?.started ?? !probed(name)?.startupProbe),
      killMessage: (id) => this.notes.get(id)?.killMessage,
      terminationMessage: (c) => this.terminationMessages.get(s.pod, c),
      runtime,
      waiting: s.waiting,
      volumesNotReady: s.volumesNotReady,
      hostIP: this.o.runtimeConfig.hostIP,
      hostIPs: this.o.runtimeConfig.hostIPs,
      startTime: s.seen,
      failed: s.failed,
      now: apiTime(this.o.clock.now()),
      previous: s.apiStatus,
    });
    this.statusMemo.set(s, { inputs, status });
    return status;
  }

  /**
   * Keeps what the status says of each running container for the next start: after every sync, and
   * whenever pods() reports a status. A readiness change wakes the pod's worker too, but GET /pods
   * shows it as soon as the prober has it, before the sync loop delivers it; an agent stopped in
   * between (the loop stops first) would start again from the older note and report the opposite.
   */
  private noteReported(status: ApiPodStatus): void {
    for (const c of [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])]) {
      // Not while its postStart hook runs: "not started yet" is the hook's, not the container's to keep.
      const id = c.containerID?.replace(/^[a-z]+:\/\//, "");
      if (c.state?.running && id && !this.syncer.postStartRunning(id)) this.notes.update(id, { ready: c.ready, started: c.started });
    }
  }

  /**
   * What a streaming request (exec, attach, port-forward) reaches, as the kubelet's findContainer
   * over the runtime's running pods: the running container of that name, or the ready sandbox; the
   * kubelet's refusals otherwise (404 `pod does not exist`, 500 `container not found ("c")`).
   */
  streamTarget(namespace: string, name: string, uid: string | undefined, container: string | undefined): { sandboxId: string; containerId?: string } | { status: number; message: string } {
    const w = this.workers.states().find((s) => {
      const r = podRef(s.pod);
      return r.namespace === namespace && r.name === name && !s.removed;
    });
    if (!w || (uid !== undefined && w.uid !== uid)) return { status: 404, message: "pod does not exist" };
    const st = this.o.pleg.cache.get(w.uid)?.status;
    const sandbox = st?.sandboxStatuses.find((sb) => sb.state === "SANDBOX_READY");
    if (container === undefined) {
      if (!sandbox) return { status: 500, message: `pod ${namespace}/${name} has no running sandbox` };
      return { sandboxId: sandbox.id };
    }
    const c = st?.containerStatuses.find((cs) => cs.metadata?.name === container && cs.state === "CONTAINER_RUNNING");
    if (!c) return { status: 500, message: `container not found (${JSON.stringify(container)})` };
    return { sandboxId: sandbox?.id ?? "", containerId: c.id };
  }

  /** Every pod with its live status, computed from the newest cached runtime status. */
  pods(): Pod[] {
    return this.workers.states().map((s) => {
      const before = s.apiStatus;
      s.apiStatus = this.apiStatus(s);
      // apiStatus hands back the same object while nothing changed: only a new status has news to note.
      if (s.apiStatus !== before) this.noteReported(s.apiStatus);
      // The same object while neither the spec nor the status changed, so that a reader can keep
      // what it made of it (the server keeps each pod's JSON).
      const spec = s.restartRequested ?? s.pod;
      const last = this.podMemo.get(s);
      if (last && last.spec === spec && last.pod.status === s.apiStatus) return last.pod;
      const pod: Pod = { apiVersion: "v1", kind: "Pod", ...spec, status: s.apiStatus };
      this.podMemo.set(s, { spec, pod });
      return pod;
    });
  }

  /** The v1 Node describing this host; its allocatable is kept for nodeAllocatable(). */
  async node(): Promise<Node> {
    const node = await this.o.node();
    this.allocatable = node.status?.allocatable;
    this.builtNode = node;
    return node;
  }

  /**
   * The Node as last built (the kubelet's getNodeAnyWay reads its cached Node the same way): labels,
   * taints and allocatable come from the configuration and the machine, so the one built at start
   * holds; a cluster node rebuilds it every status update, GET /node on every call.
   */
  lastNode(): Node | undefined {
    return this.builtNode;
  }

  /**
   * The node's allocatable, as last reported (the kubelet's GetNodeAllocatable reads its cached node
   * info too): built once when nothing has asked for the Node yet. Undefined when the Node cannot be
   * built; the callers then fall back as the kubelet does without it (no default limit, no tmpfs size).
   */
  async nodeAllocatable(): Promise<ResourceList | undefined> {
    if (this.allocatable) return this.allocatable;
    try {
      return (await this.node()).status?.allocatable;
    } catch (err) {
      this.o.log.warn(`the node's allocatable is unknown (${errorMessage(err)}): resource values of unset limits stay empty`);
      return undefined;
    }
  }

  /**
   * The kubelet's health checks (ping, PLEG, syncloop), which decide the node's Ready condition, and
   * "sources", which never fails: a source that cannot be read (a vanished manifest directory, an
   * unreadable pushed-pods.json, an API server away) keeps its pods, so it is a warning on
   * /healthz?verbose, not a reason to make the node NotReady and have its pods evicted.
   */
  healthChecks(): { name: string; ok: boolean; message: string; warning?: string }[] {
    const pleg = this.o.pleg.healthy();
    const last = this.loop.lastIterationAt;
    const since = this.o.clock.now() - last;
    const loopOk = last !== 0 && since < 2 * 60_000;
    const problems = this.o.sources.flatMap((s) => (s.problems?.() ?? []).map((p) => `${s.name} source: ${p}`));
    return [
      { name: "ping", ok: true, message: "ok" },
      { name: "PLEG", ok: pleg.ok, message: pleg.message },
      { name: "syncloop", ok: loopOk, message: loopOk ? "ok" : last === 0 ? "sync loop has not run yet" : `sync loop last ran ${Math.round(since / 1000)}s ago` },
      { name: "sources", ok: true, message: "ok", ...(problems.length ? { warning: problems.join("; ") } : {}) },
    ];
  }
}
