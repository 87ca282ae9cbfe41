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
// (handlePodCleanups, housekeeping.ts) is where orphaned pods and pod folders are handled. The eviction manager
// (src/eviction) runs a loop of its own beside the sync loop, as the kubelet's does (measuring volumes
// must not hold up syncs): it sees the active pods and evicts through the pod workers' evictPod. So do
// the garbage collectors (src/eviction, the kubelet's StartGarbageCollection): container GC, the one
// owner of the policy on dead containers and sandboxes, asks the agent which pods are gone
// (PodStateProvider); image GC and log rotation need only the runtime.
//
// What the agent is made of is made in one place (agent-parts.ts) from AgentOptions (agent-options.ts);
// the API statuses are api-statuses.ts's, admission and eviction over the active pods active-pods.ts's.
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { PodAdmitResult } from "../admission";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS, isTerminalPhase, podRef } from "../api";
import { podReference } from "../events";
import { type EvictionStatus, IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS } from "../eviction";
import type { ContainerGC } from "../gc";
import type { ProbeSeed, ProbeUpdate, RunningContainer } from "../prober";
import type { Timer } from "../util";
import { type ObjectRef, type ResourceList, usesObject } from "../objects";
import type { VolumeManager } from "../volume";
import { NODE_WAIT_MS, SHUTDOWN_GRACE_MS, type AgentOptions, type EvictionLoop } from "./agent-options";
import { buildAgentParts, type AgentParts } from "./agent-parts";
import type { PodSyncer, SyncResult } from "./pod-sync";
import { isSidecar, noPodActions } from "./pod-actions";
import { ResizeProgress } from "./resize-progress";
import type { RuntimeState } from "./runtime-state";
import { SYNC_ERROR_BACKOFF_MS, type PodWorkers, type PodWorkerView } from "./pod-workers";
import { SyncLoop, type SyncHandler } from "./sync-loop";

export { NODE_WAIT_MS, SHUTDOWN_GRACE_MS, type AgentHooks, type AgentOptions, type EvictionLoop } from "./agent-options";

export class Agent implements SyncHandler {
  readonly loop: SyncLoop;
  /** The agent's machinery (agent-parts.ts). */
  private readonly p: AgentParts;
  /** The node's status.allocatable when node() last built it. */
  private allocatable: ResourceList | undefined;
  /** The Node node() last built: what admission checks pods against (lastNode()). */
  private builtNode: Node | undefined;
  /** Pods whose containers have all started once (podStarted reported). */
  private readonly started = new Set<string>();
  /** The PodResizeInProgress condition around each sync (resize-progress.ts). */
  private readonly resize: ResizeProgress;

  constructor(private readonly o: AgentOptions) {
    this.p = buildAgentParts(o, {
      onProbeUpdate: (update) => this.loop.push({ kind: "probe", update }),
      nodeAllocatable: () => this.nodeAllocatable(),
      syncPod: (pod, st) => this.syncPod(pod, st),
      afterSync: (s, r) => this.afterSync(s, r),
      beforeSync: (s) => this.beforeSync(s),
      resyncPod: (pod) => this.workers.updatePod({ type: "update", pod }),
    });
    this.resize = new ResizeProgress({
      conditions: this.p.resizeConditions,
      events: this.p.events,
      actuatedOf: (uid) => this.p.syncer.resizer.actuatedOf(uid),
      reinspect: o.pleg.reinspectPod ? (uid) => o.pleg.reinspectPod?.(uid) : undefined,
    });
    this.loop = new SyncLoop({
      handler: this,
      duePods: () => this.p.workers.getDuePods(),
      clock: o.clock,
      log: o.log,
      housekeepingPeriodMs: o.housekeepingPeriodMs,
    });
  }

  get workers(): PodWorkers {
    return this.p.workers;
  }
  /** What the runtime last said of itself (its network's readiness gates the pod syncs). */
  get runtimeState(): RuntimeState {
    return this.p.runtimeState;
  }
  get volumes(): VolumeManager {
    return this.p.volumes;
  }
  get eviction(): EvictionLoop {
    return this.p.eviction;
  }
  /** The collector of dead containers, sandboxes and pod log folders; absent without options.containerGC. */
  get containerGC(): ContainerGC | undefined {
    return this.p.containerGC;
  }

  /** Starts the sources and runs the sync loop until the signal aborts. Pods keep running when it stops. */
  async run(signal: AbortSignal): Promise<void> {
    const { config, pleg, clock, sources } = this.o;
    const unsubscribe = config.onUpdate((update) => this.loop.push({ kind: "config", update }));
    const unsubscribeObjects = this.p.objects.onChange((ref) => this.loop.push({ kind: "object", ref }));
    for (const s of sources) {
      s.start((report) => {
        config.apply(report);
        this.o.hooks?.sourceReported?.(report);
      });
    }
    const plegDone = pleg.run(signal).catch((err) => this.o.log.error("PLEG stopped", { err }));
    const runtimeStateDone = this.runtimeState.run(signal);
    const evictionDone = this.eviction.run(signal);
    const resizesDone = this.p.allocation.run(signal);
    const gcDone = Promise.all([this.containerGC?.run(signal), ...(this.o.backgroundLoops ?? []).map((l) => l.run(signal))]);
    await this.firstNode(signal);
    const loopDone = signal.aborted ? Promise.resolve() : this.loop.run(signal, pleg.events);
    await loopDone;
    unsubscribe();
    unsubscribeObjects();
    // In-flight work gets a bounded time to finish: a runtime that hangs (an overloaded containerd can
    // leave a call open for minutes) must not keep the agent from stopping. The pods run on either way,
    // and whatever a sync left half done is adopted by the next start, as after kill -9.
    const drained = Promise.all([plegDone, runtimeStateDone, evictionDone, resizesDone, gcDone, this.workers.idle(), this.p.probes.stop()]).then(() => true);
    let timer: Timer | undefined;
    const late = new Promise<false>((resolve) => (timer = clock.setTimer(SHUTDOWN_GRACE_MS, () => resolve(false))));
    const finished = await Promise.race([drained, late]);
    timer?.cancel();
    if (!finished)
      this.o.log.warn("stopping with work still in flight (the runtime is not answering); the next start adopts what runs", {
        after: `${SHUTDOWN_GRACE_MS / 1000}s`,
      });
    this.p.notes.flush();
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
      (err) => this.o.log.warn("the node cannot be built: new pods are refused (InvalidNodeInfo) until it can", { err }),
    );
    const stopWaiting = new AbortController();
    const onAbort = () => stopWaiting.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const waited = this.o.clock.sleep(NODE_WAIT_MS, stopWaiting.signal).then(
      () => false,
      () => false,
    );
    const inTime = await Promise.race([built, waited]);
    stopWaiting.abort();
    signal.removeEventListener("abort", onAbort);
    if (inTime === false && !this.builtNode && !signal.aborted)
      this.o.log.warn("the node is not built yet (the runtime is not answering): new pods are refused (InvalidNodeInfo) until it is", {
        after: `${NODE_WAIT_MS / 1000}s`,
      });
  }

  // ---------------------------------------------------------------------------------------------
  // SyncHandler: what each kind of sync loop event does (see SyncLoop.syncLoopIteration).

  handlePodAdditions(pods: Pod[]): void {
    // The kubelet admits new pods oldest first, so that a newer pod never takes an older one's place.
    const ordered = [...pods].sort((a, b) => Date.parse(a.metadata?.creationTimestamp ?? "") - Date.parse(b.metadata?.creationTimestamp ?? "") || 0);
    for (const pod of ordered) {
      const known = this.workers.get(podRef(pod).uid) !== undefined;
      const evicted = known ? undefined : this.p.evicted.get(podRef(pod).uid);
      if (evicted) {
        // Evicted before the agent restarted, and its source still has it: it stays Failed, never
        // started (its containers, already stopped, are stopped again at once if one still runs).
        // An eviction for node pressure is undone once the pressure is observed gone (recoverEvictedPods).
        this.workers.updatePod({ type: "create", pod });
        this.workers.evictPod(podRef(pod).uid, {
          status: { reason: evicted.reason, message: evicted.message },
          gracePeriodSeconds: IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
        });
        continue;
      }
      // Admission is for pods that would start: a known UID (a restart request) was admitted before,
      // and a pod being deleted or already finished only terminates. It admits the pod with what the
      // node had allocated to it, if anything (allocation-manager.ts: an agent restarted mid-resize).
      if (known) this.p.allocation.updatePod(pod);
      if (!known && !pod.metadata?.deletionTimestamp && !isTerminalPhase(pod.status?.phase)) {
        const r = this.p.allocation.addPod(pod, (allocated) => this.canAdmitPod(allocated));
        if (!r.admit) {
          // As the kubelet's rejectPod: a Warning event with the handler's reason and message, then
          // phase Failed, the handler's reason, its message prefixed.
          this.p.events.event(podReference(pod), "Warning", r.reason, r.message);
          this.workers.reject(pod, { reason: r.reason, message: `Pod was rejected: ${r.message}` });
          continue;
        }
      }
      this.workers.updatePod({ type: "create", pod });
    }
    // Resizes pending when the pods came (an agent restarted mid-resize) are tried once all are in.
    if (this.p.allocation.hasPendingResizes()) this.p.allocation.retryPendingResizes("pods_added");
  }

  handlePodUpdates(pods: Pod[]): void {
    for (const pod of pods) {
      // A changed spec may be a resize (the API server's resize subresource): admitted or left pending.
      this.p.allocation.updatePod(pod);
      this.workers.updatePod({ type: "update", pod });
    }
  }

  handlePodDeletions(pods: Pod[]): void {
    for (const pod of pods) this.workers.updatePod({ type: "kill", pod });
  }

  handlePodRemoves(pods: Pod[]): void {
    for (const pod of pods) {
      this.workers.updatePod({ type: "kill", pod, remove: true });
      this.p.allocation.removePod(podRef(pod).uid);
    }
  }

  handlePodReconcile(pods: Pod[]): void {
    for (const pod of pods) {
      this.workers.reconcile(pod);
      // A pod that has just finished frees what it held: deferred resizes are tried again (pod_terminated).
      this.p.allocation.reconcilePod(pod);
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
      this.p.notes.update(u.containerId, { killMessage: message });
      this.o.log.info("container failed its probe", {
        pod: `${u.namespace}/${u.podName}`,
        container: u.containerName,
        probe: u.probeType,
        restart: restarted,
        reason: u.reason,
      });
    } else if (u.probeType === "readiness") {
      this.o.log.info(u.result === "success" ? "container is ready" : "container is not ready", {
        pod: `${u.namespace}/${u.podName}`,
        container: u.containerName,
        reason: u.result === "success" ? undefined : u.reason,
      });
    }
    this.workers.syncPod(u.podUid);
  }

  handleObjectChange(ref: ObjectRef): void {
    const uids = new Set(this.p.volumes.objectChanged(ref));
    for (const s of this.workers.states()) if (s.phase === "syncing" && usesObject(s.pod, ref)) uids.add(s.uid);
    if (uids.size)
      this.o.log.info("API object changed: syncing the pods that use it", { kind: ref.kind, object: `${ref.namespace}/${ref.name}`, pods: uids.size });
    for (const uid of uids) this.workers.syncPod(uid);
  }

  handlePodCleanups(): void {
    this.p.housekeeping.run();
  }

  // ---------------------------------------------------------------------------------------------
  // Admission and eviction over the active pods (active-pods.ts).

  /**
   * The admission chain over the pods the node runs now (the kubelet's canAdmitPod over its active
   * pods). dryRun: only the answer (the push source's check), no preemption.
   */
  canAdmitPod(pod: Pod, o: { dryRun?: boolean } = {}): PodAdmitResult {
    return this.p.active.canAdmitPod(pod, o);
  }

  /** The pods the node runs now, as the kubelet's GetActivePods sees them: the eviction manager's candidates. */
  activePods(): Pod[] {
    return this.p.active.activePods();
  }

  /** How the node stops a pod on its own (the eviction manager, critical-pod preemption at admission). */
  evictPod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): boolean {
    return this.p.active.evictPod(pod, status, gracePeriodSeconds);
  }

  /** How a node shutdown stops a pod: resolves once it has terminated, false at once when it is not running. */
  terminatePod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): Promise<boolean> {
    return this.p.active.terminatePod(pod, status, gracePeriodSeconds);
  }

  /** Which probe has failed for a running instance, if any: the sync kills it (computePodActions). */
  private probeFailure(containerId: string): "liveness" | "startup" | undefined {
    if (this.p.probes.result(containerId, "liveness") === "failure") return "liveness";
    if (this.p.probes.result(containerId, "startup") === "failure") return "startup";
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
    const n = this.p.notes.get(containerId);
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
    const exceeded = this.p.deadlines.shouldEvict(pod, seen);
    if (exceeded) {
      this.evictPod(pod, exceeded, pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
      return { actions: noPodActions(), waiting: new Map(), changed: false, errors: [] };
    }
    this.resize.beforeSync(pod, st);
    const r = await this.p.syncer.syncPod(
      pod,
      st,
      (_name, id) => this.probeFailure(id),
      (name, id) => this.p.probes.started(podRef(pod).uid, name, id) ?? this.p.notes.get(id)?.started,
    );
    this.resize.afterSync(pod, r);
    const at = this.p.deadlines.deadline(pod, seen);
    if (at !== undefined) {
      const next = r.retryAt ?? this.o.clock.now() + (r.errors.length ? SYNC_ERROR_BACKOFF_MS : (this.o.syncFrequencyMs ?? 60_000));
      if (at < next) r.retryAt = at;
    }
    return r;
  }

  /**
   * Before a worker's sync or termination acts, the status of what the runtime has now is published, as
   * the kubelet's SyncPod and SyncTerminatingPod begin (generateAPIPodStatus, SetPodStatus). A Job's
   * main container that exited shows terminated at once, while the sync that follows stops the pod's
   * sidecars one after the other (each may take its whole grace period); published only after that
   * sync, the main container showed running until the last sidecar had stopped.
   */
  private beforeSync(s: PodWorkerView): void {
    this.p.statusManager.setPodStatus(s.pod, this.p.statuses.afterSync(s));
  }

  /** After every worker step: probes follow the pod, and the status is computed and reported. */
  private afterSync(s: PodWorkerView, _result: SyncResult | undefined): void {
    const st = this.o.pleg.cache.get(s.uid)?.status;
    // The probe workers follow the runtime's containers (the kubelet's probeManager.AddPod and
    // StartupProbe/Liveness stop on termination, RemovePod when the pod is gone).
    if (s.phase === "syncing") this.p.probes.syncPod(s.pod, st?.ips[0] ?? "", this.runningContainers(s.uid), (c) => this.probeSeed(c.id));
    else if (s.phase === "terminating") this.p.probes.stopLivenessAndStartup(s.uid);
    else if (s.phase === "terminated" && s.removed) this.p.probes.removePod(s.uid);
    const status = this.p.statuses.afterSync(s);
    this.p.statusManager.setPodStatus(s.pod, status);
    if (s.phase === "terminated") {
      this.p.statusManager.terminatePod(s.pod, status);
      this.p.active.terminated(s.uid);
      // What the pod held may let a deferred resize of another pod fit now.
      if (this.p.allocation.hasPendingResizes()) this.p.allocation.retryPendingResizes("pod_terminated");
    }
    if (!this.started.has(s.uid) && s.phase === "syncing" && status.containerStatuses?.every((c) => c.state?.running) && st) {
      this.started.add(s.uid);
      this.o.hooks?.podStarted?.(s.pod, (this.o.clock.now() - Date.parse(s.seen)) / 1000);
    }
    if (s.phase === "terminated" && s.removed) {
      this.started.delete(s.uid);
      this.p.evicted.delete(s.uid);
      this.p.housekeeping.forget(s.uid);
      this.p.statusManager.removePod(s.pod);
      this.o.hooks?.podRemoved?.(s.pod);
    }
  }

  /**
   * What a streaming request (exec, attach, port-forward) reaches, as the kubelet's findContainer
   * over the runtime's running pods: the running container of that name, or the ready sandbox; the
   * kubelet's refusals otherwise (404 `pod does not exist`, 500 `container not found ("c")`).
   */
  streamTarget(
    namespace: string,
    name: string,
    uid: string | undefined,
    container: string | undefined,
  ): { sandboxId: string; containerId?: string } | { status: number; message: string } {
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
    return this.p.statuses.pods(this.p.workers.states());
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
      this.o.log.warn("the node's allocatable is unknown: resource values of unset limits stay empty", { err });
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
      {
        name: "syncloop",
        ok: loopOk,
        message: loopOk ? "ok" : last === 0 ? "sync loop has not run yet" : `sync loop last ran ${Math.round(since / 1000)}s ago`,
      },
      { name: "sources", ok: true, message: "ok", ...(problems.length ? { warning: problems.join("; ") } : {}) },
    ];
  }
}
