// The scheduler (pkg/scheduler/schedule_one.go and eventhandlers.go): pops a pod, runs the scheduling
// cycle synchronously — snapshot, PreFilter, Filter (the nominated node first, then from a rotating
// start index until enough feasible nodes are found), PostFilter when none fits, PreScore, Score,
// selectHost, assume, Reserve, Permit — and the binding cycle asynchronously (WaitOnPermit, PreBind,
// Bind, PostBind). Failures are recorded the way kube-scheduler records them and the pod goes back
// to the queue. Cluster changes (nodes, bound pods, pending pods) come in through on*() handlers.
// Picking the node (snapshot to selectHost) is find-host.ts.
import type { Node, Pod } from "kubernetes-types/core/v1";
import { type Clock, errorMessage, type LogFields } from "../util";
import { Cache, podCacheKey } from "./cache/cache";
import { Snapshot } from "./cache/snapshot";
import type { SchedulerConfig } from "./config/types";
import { CycleState } from "./framework/cycle-state";
import { Diagnosis, FitError } from "./framework/diagnosis";
import { EVENT_ASSIGNED_POD_DELETE, EVENT_NODE_ADD, EVENT_NODE_DELETE, nodeUpdateEvents, podUpdateEvents } from "./framework/events";
import { CycleRecorder, verdict, type AttemptExplanation } from "./framework/explain";
import type { ClusterClient, PluginFactory, QueuedPodInfo } from "./framework/interface";
import type { AttemptResult } from "./framework/result";
import { Framework } from "./framework/runtime";
import { Code, Status, type MaybeStatus } from "./framework/status";
import type { PodInfo } from "./model/pod-info";
import { HostFinder, type ScheduleResult } from "./find-host";
import { inTreeRegistry } from "./plugins/registry";
import type { NominatingInfo } from "./queue/nominator";
import type { QueueHint } from "./queue/queueing-hints";
import { SchedulingQueue } from "./queue/scheduling-queue";

export interface SchedulerLog {
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

export interface SchedulerOptions {
  config: SchedulerConfig;
  clock: Clock;
  /** Binds pods and evicts preemption victims; see cluster.ts. Set later with setClient when it needs the scheduler. */
  client?: ClusterClient;
  /** [0, 1): tie-breaking between equal scores and preemption's random offset. Default Math.random. */
  random?: () => number;
  /** Record an explanation of every attempt (--explain). */
  explain?: boolean;
  registry?: ReadonlyMap<string, PluginFactory>;
  log?: SchedulerLog;
  /** Called after every attempt (a bound pod, a failure). */
  onAttempt?: (r: AttemptResult) => void;
  popFromBackoffQ?: boolean;
  /** Stop retrying a pod after this many attempts (a one-shot run must end); default unlimited. */
  maxAttempts?: number;
}

const SILENT: SchedulerLog = { info() {}, warn() {}, debug() {} };
const CLEAR_NOMINATION: NominatingInfo = { mode: "override", nodeName: "" };

export class Scheduler {
  readonly profiles = new Map<string, Framework>();
  readonly queue: SchedulingQueue;
  readonly cache = new Cache();
  readonly snapshot = new Snapshot();
  readonly clock: Clock;
  private client: ClusterClient | undefined;
  private readonly random: () => number;
  private readonly explain: boolean;
  private readonly log: SchedulerLog;
  private readonly onAttempt: (r: AttemptResult) => void;
  private readonly hostFinder: HostFinder;
  private readonly maxAttempts: number;
  /** Pending (unbound) pods the scheduler is responsible for, by UID: the latest version of each. */
  private readonly pending = new Map<string, Pod>();
  private readonly inFlightWork = new Set<Promise<void>>();
  /** Pods preempted for a pod, carried into its later attempts' results. */
  private readonly preemptedFor = new Map<string, string[]>();

  constructor(o: SchedulerOptions) {
    this.clock = o.clock;
    this.client = o.client;
    this.random = o.random ?? Math.random;
    this.explain = !!o.explain;
    this.log = o.log ?? SILENT;
    this.onAttempt = o.onAttempt ?? (() => {});
    this.hostFinder = new HostFinder({
      cache: this.cache,
      snapshot: this.snapshot,
      random: this.random,
      percentageOfNodesToScore: o.config.percentageOfNodesToScore,
      warn: (m, f) => this.log.warn(m, f),
    });
    this.maxAttempts = o.maxAttempts ?? Infinity;
    const registry = o.registry ?? inTreeRegistry();
    for (const profile of o.config.profiles) {
      this.profiles.set(
        profile.schedulerName,
        new Framework(profile, registry, {
          clock: this.clock,
          client: { bind: (pod, node) => this.clusterClient().bind(pod, node), deletePod: (v, node) => this.clusterClient().deletePod(v, node) },
          snapshot: () => this.snapshot,
          random: this.random,
          nominatedPodsForNode: (node) => this.queue.nominator.podsForNode(node),
          clearNomination: (pod) => this.queue.nominator.delete(pod.uid),
          background: (what, work) => this.track(what, work),
        }),
      );
    }
    const frameworks = [...this.profiles.values()];
    const sort = frameworks[0]!.queueSortPlugins[0]!;
    for (const f of frameworks) {
      if (f.queueSortPlugins[0]!.name !== sort.name)
        throw new Error(
          `different queue sort plugins for profile ${JSON.stringify(f.profileName)}: ${f.queueSortPlugins[0]!.name}, first profile: ${sort.name}`,
        );
    }
    const hints = new Map<string, QueueHint[]>();
    for (const f of frameworks) hints.set(f.profileName, f.eventsToRegister());
    this.queue = new SchedulingQueue({
      clock: this.clock,
      less: (a, b) => sort.less(a, b),
      podInitialBackoffMs: o.config.podInitialBackoffSeconds * 1000,
      podMaxBackoffMs: o.config.podMaxBackoffSeconds * 1000,
      popFromBackoffQ: o.popFromBackoffQ,
      preEnqueue: (pi) => this.frameworkFor(pi.pod)?.runPreEnqueuePlugins(pi),
      hints,
      namespaceLabels: (ns) => this.snapshot.namespaceLabels(ns),
      onHintError: (plugin, pod, err) => this.log.warn("QueueingHintFn failed", { plugin, pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, err }),
    });
  }

  setClient(client: ClusterClient): void {
    this.client = client;
  }

  private clusterClient(): ClusterClient {
    if (!this.client) throw new Error("the scheduler has no cluster client to bind with");
    return this.client;
  }

  frameworkFor(pod: Pod): Framework | undefined {
    return this.profiles.get(pod.spec?.schedulerName || "default-scheduler");
  }

  /** Work outside the cycles (bindings, evictions): awaited by settle(), failures logged. */
  private track(what: string, work: Promise<void>): void {
    const p = work.catch((err) => this.log.warn("background work failed", { work: what, err }));
    this.inFlightWork.add(p);
    void p.finally(() => this.inFlightWork.delete(p));
  }

  /** Resolves when no binding cycle or background work is running. */
  async settle(): Promise<void> {
    while (this.inFlightWork.size > 0) await Promise.all([...this.inFlightWork]);
  }

  // -------------------------------------------------------------------------------------------
  // Cluster events (eventhandlers.go)

  onNodeAdd(node: Node): void {
    this.cache.addNode(node);
    this.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node);
  }

  onNodeUpdate(oldNode: Node, newNode: Node): void {
    this.cache.updateNode(oldNode, newNode);
    for (const e of nodeUpdateEvents(oldNode, newNode)) this.queue.moveAllToActiveOrBackoffQueue(e, oldNode, newNode);
  }

  onNodeDelete(node: Node): void {
    this.cache.removeNode(node.metadata?.name ?? "");
    this.queue.moveAllToActiveOrBackoffQueue(EVENT_NODE_DELETE, node, undefined);
  }

  /** A pod appeared: a bound pod counts on its node; a pending pod this scheduler serves is queued. */
  onPodAdd(pod: Pod): void {
    if (pod.spec?.nodeName) {
      this.pending.delete(podCacheKey(pod));
      this.cache.addPod(pod);
      this.queue.assignedPodAdded(pod);
      return;
    }
    if (!this.frameworkFor(pod)) return;
    this.pending.set(podCacheKey(pod), pod);
    this.queue.add(pod);
  }

  onPodUpdate(oldPod: Pod, newPod: Pod): void {
    if (newPod.spec?.nodeName) {
      if (!oldPod.spec?.nodeName) {
        // Bound by someone else (or confirmed): it leaves the queue and counts on its node.
        this.pending.delete(podCacheKey(newPod));
        this.queue.delete(oldPod);
        this.cache.addPod(newPod);
        this.queue.assignedPodAdded(newPod);
        return;
      }
      this.cache.updatePod(oldPod, newPod);
      for (const e of podUpdateEvents(oldPod, newPod)) this.queue.assignedPodUpdated(oldPod, newPod, e);
      return;
    }
    if (!this.frameworkFor(newPod)) return;
    this.pending.set(podCacheKey(newPod), newPod);
    this.queue.update(oldPod, newPod);
  }

  onPodDelete(pod: Pod): void {
    const key = podCacheKey(pod);
    if (pod.spec?.nodeName || (this.cache.getPod(pod) && !this.pending.has(key))) {
      const removed = this.cache.removePod(pod);
      this.queue.moveAllToActiveOrBackoffQueue(EVENT_ASSIGNED_POD_DELETE, removed?.pod ?? pod, undefined);
      return;
    }
    this.pending.delete(key);
    this.queue.delete(pod);
    for (const f of this.profiles.values()) f.rejectWaitingPod(key);
  }

  // -------------------------------------------------------------------------------------------
  // Scheduling

  /** Schedules the next pod of activeQ (or backoffQ) if there is one; false when the queue has none ready. */
  scheduleNext(): boolean {
    const p = this.queue.tryPop();
    if (!p) return false;
    this.scheduleOne(p);
    return true;
  }

  /** Runs until the signal aborts: waits for pods, schedules them one at a time. */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.queue.close();
    signal.addEventListener("abort", onAbort, { once: true });
    this.queue.run();
    try {
      for (;;) {
        const p = await this.queue.pop();
        if (!p || signal.aborted) break;
        this.scheduleOne(p);
        // Let bindings, events and timers through between cycles.
        await new Promise<void>((r) => setImmediate(r));
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.queue.close();
      await this.settle();
    }
  }

  /** ScheduleOne: the scheduling cycle now, the binding cycle in the background. */
  scheduleOne(pInfo: QueuedPodInfo): void {
    const pod = pInfo.podInfo;
    const fwk = this.frameworkFor(pod.pod);
    if (!fwk) {
      this.log.warn("profile not found for scheduler name", { schedulerName: pod.pod.spec?.schedulerName ?? "" });
      this.queue.done(pod.uid);
      return;
    }
    // skipPodSchedule: a pod being deleted, or one already assumed (it came back through an update).
    if (pod.pod.metadata?.deletionTimestamp || this.cache.isAssumedPod(pod.pod) || pInfo.attempts > this.maxAttempts) {
      this.queue.done(pod.uid);
      return;
    }
    const state = new CycleState();
    if (this.explain) state.recorder = new CycleRecorder(pInfo.attempts, fwk.profileName, this.cache.numNodes);
    const cycle = this.schedulingCycle(state, fwk, pInfo);
    if (!cycle.ok) {
      this.handleSchedulingFailure(fwk, pInfo, cycle.status, cycle.nominating, state.recorder?.explanation);
      return;
    }
    this.track(`binding ${pod.key}`, this.bindingCycle(state, fwk, cycle.result, cycle.assumed, pInfo));
  }

  private schedulingCycle(
    state: CycleState,
    fwk: Framework,
    pInfo: QueuedPodInfo,
  ): { ok: true; result: ScheduleResult; assumed: PodInfo } | { ok: false; status: Status; nominating: NominatingInfo | undefined } {
    const pod = pInfo.podInfo;
    const r = this.hostFinder.schedulePod(fwk, state, pod);
    if ("status" in r) return { ok: false, status: r.status, nominating: CLEAR_NOMINATION };
    if ("fitError" in r) {
      const fitError = r.fitError;
      if (!fwk.hasPostFilterPlugins()) return { ok: false, status: fitStatus(Code.Unschedulable, fitError), nominating: CLEAR_NOMINATION };
      const pf = fwk.runPostFilterPlugins(state, pod, fitError.diagnosis.nodeToStatus);
      fitError.diagnosis.postFilterMsg = pf.status?.message() ?? "";
      if (pf.status?.code === Code.Error) this.log.warn("PostFilter failed", { pod: pod.key, err: pf.status.message() });
      const rec = state.recorder?.explanation;
      if (rec) {
        const plugin = pf.status?.plugin || fwk.postFilterPlugins[0]?.name || "";
        rec.postFilter = {
          ...verdict(plugin, pf.status),
          nominatedNode: pf.result?.nominatedNodeName || undefined,
          victims: pf.result?.victims?.map((v) => v.key),
        };
      }
      if (pf.result?.victims?.length) {
        const node = pf.result.nominatedNodeName;
        this.preemptedFor.set(pod.uid, [...(this.preemptedFor.get(pod.uid) ?? []), ...pf.result.victims.map((v) => `${v.key} on ${node}`)]);
      }
      const nominating: NominatingInfo | undefined = pf.result ? { mode: "override", nodeName: pf.result.nominatedNodeName } : undefined;
      return { ok: false, status: fitStatus(Code.Unschedulable, fitError), nominating };
    }
    // assume: the pod counts on the node from now on, while binding runs in the background.
    const assumedPod: Pod = { ...pod.pod, spec: { ...pod.pod.spec!, nodeName: r.host } };
    const assumed = pod.withPod(assumedPod);
    try {
      this.cache.assumePod(assumed);
    } catch (e) {
      return { ok: false, status: new Status(Code.Error, [errorMessage(e)], e as Error), nominating: CLEAR_NOMINATION };
    }
    this.queue.nominator.delete(pod.uid);
    const rejected = (s: Status): Status => {
      fwk.runReservePluginsUnreserve(state, assumed, r.host);
      this.cache.forgetPod(assumedPod);
      if (!s.isRejected()) return s;
      const d = new Diagnosis();
      d.nodeToStatus.set(r.host, s);
      d.addPluginStatus(s);
      return fitStatus(s.code, new FitError(pod.key, 1, d));
    };
    const reserve = fwk.runReservePluginsReserve(state, assumed, r.host);
    if (reserve && !reserve.isSuccess()) return { ok: false, status: rejected(reserve), nominating: CLEAR_NOMINATION };
    const permit = fwk.runPermitPlugins(state, assumed, r.host);
    if (permit && !permit.isSuccess() && !permit.isWait()) return { ok: false, status: rejected(permit), nominating: CLEAR_NOMINATION };
    return { ok: true, result: r, assumed };
  }

  private async bindingCycle(state: CycleState, fwk: Framework, result: ScheduleResult, assumed: PodInfo, pInfo: QueuedPodInfo): Promise<void> {
    const host = result.host;
    let status: MaybeStatus = await fwk.waitOnPermit(assumed);
    if (status && !status.isSuccess()) {
      if (status.isRejected()) {
        const d = new Diagnosis();
        d.nodeToStatus.set(host, status);
        d.unschedulablePlugins.add(status.plugin);
        status = fitStatus(status.code, new FitError(assumed.key, 1, d));
      }
      return this.handleBindingCycleError(state, fwk, pInfo, assumed, host, status);
    }
    // From here on a failure cannot make the pod unschedulable: its in-flight events can go.
    this.queue.done(assumed.uid);
    status = await fwk.runPreBindPlugins(state, assumed, host);
    if (status && !status.isSuccess()) return this.handleBindingCycleError(state, fwk, pInfo, assumed, host, status);
    status = await fwk.runBindPlugins(state, assumed, host);
    this.cache.finishBinding(assumed.pod);
    if (status && !status.isSuccess()) return this.handleBindingCycleError(state, fwk, pInfo, assumed, host, status);
    this.pending.delete(assumed.uid);
    fwk.runPostBindPlugins(state, assumed, host);
    const explanation = state.recorder?.explanation;
    this.onAttempt({
      ...this.identity(pInfo),
      outcome: "Scheduled",
      node: host,
      message: `Successfully assigned ${assumed.key} to ${host}`,
      evaluatedNodes: result.evaluatedNodes,
      feasibleNodes: result.feasibleNodes,
      score: result.score,
      preempted: this.preemptedFor.get(assumed.uid),
      time: this.clock.now(),
      ...(explanation ? { explanation } : {}),
    });
    this.preemptedFor.delete(assumed.uid);
  }

  private handleBindingCycleError(state: CycleState, fwk: Framework, pInfo: QueuedPodInfo, assumed: PodInfo, host: string, status: Status): void {
    fwk.runReservePluginsUnreserve(state, assumed, host);
    this.cache.forgetPod(assumed.pod);
    // Forgetting the assumed pod frees its room: like a bound pod's deletion for the pods waiting.
    const move = () =>
      this.queue.moveAllToActiveOrBackoffQueue(
        EVENT_ASSIGNED_POD_DELETE,
        assumed.pod,
        undefined,
        status.isRejected() ? (p) => p.metadata?.uid !== assumed.uid : undefined,
      );
    if (!status.isRejected()) move();
    this.handleSchedulingFailure(fwk, pInfo, status, CLEAR_NOMINATION, state.recorder?.explanation);
    if (status.isRejected()) move();
  }

  private identity(pInfo: QueuedPodInfo): Pick<AttemptResult, "namespace" | "name" | "uid" | "attempt"> {
    const p = pInfo.podInfo;
    return { namespace: p.namespace, name: p.name, uid: p.uid, attempt: pInfo.attempts };
  }

  /**
   * handleSchedulingFailure: records why (PodScheduled=False, reason Unschedulable or SchedulerError,
   * the full message), remembers the rejecting plugins for the queue's hints, and requeues the pod
   * unless it was deleted or bound meanwhile.
   */
  private handleSchedulingFailure(
    fwk: Framework,
    pInfo: QueuedPodInfo,
    status: Status,
    nominating: NominatingInfo | undefined,
    explanation: AttemptExplanation | undefined,
  ): void {
    const pod = pInfo.podInfo;
    const reason = status.isRejected() ? "Unschedulable" : "SchedulerError";
    const fitError = status.cause instanceof FitError ? status.cause : undefined;
    if (fitError) {
      pInfo.unschedulablePlugins = new Set(fitError.diagnosis.unschedulablePlugins);
      pInfo.pendingPlugins = new Set(fitError.diagnosis.pendingPlugins);
    }
    const message = status.message();
    const latest = this.queue.latestInFlight(pod.uid) ?? this.pending.get(pod.uid);
    let nominatedNode: string | undefined;
    if (latest && !latest.spec?.nodeName) {
      // The pod's status as the API would now hold it: PodScheduled=False and the nomination.
      nominatedNode = nominating?.mode === "override" ? nominating.nodeName : latest.status?.nominatedNodeName;
      const updated: Pod = {
        ...latest,
        status: {
          ...latest.status,
          nominatedNodeName: nominatedNode || undefined,
          conditions: [
            ...(latest.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled"),
            { type: "PodScheduled", status: "False", reason, message },
          ],
        },
      };
      this.pending.set(pod.uid, updated);
      pInfo.podInfo = pod.withPod(updated);
      this.queue.addUnschedulableIfNotPresent(pInfo);
      this.queue.nominator.add(pInfo.podInfo, nominating);
    } else {
      this.queue.done(pod.uid);
    }
    if (reason === "SchedulerError") this.log.warn("Error scheduling pod; retrying", { pod: pod.key, err: message });
    this.onAttempt({
      ...this.identity(pInfo),
      outcome: status.isRejected() ? "Unschedulable" : "SchedulerError",
      reason,
      message,
      unschedulablePlugins: [...pInfo.unschedulablePlugins].sort(),
      nominatedNode: nominatedNode || undefined,
      preempted: this.preemptedFor.get(pod.uid),
      time: this.clock.now(),
      ...(explanation ? { explanation } : {}),
    });
  }

  /** numFeasibleNodesToFind: how many feasible nodes a cycle looks for among numAllNodes (see find-host.ts). */
  numFeasibleNodesToFind(profilePercentage: number | undefined, numAllNodes: number): number {
    return this.hostFinder.numFeasibleNodesToFind(profilePercentage, numAllNodes);
  }
}

/** A status carrying a FitError, its message as the reason (Status.WithError). */
function fitStatus(code: Code, fitError: FitError): Status {
  return new Status(code, [fitError.message], fitError);
}
