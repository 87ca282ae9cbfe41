// Fakes of the agent's seams, for the sync loop's and the agent's unit tests: a pod source a test
// reports through by hand, a PLEG whose events and cache a test sets, pod workers that only record
// what the loop asked of them, a prober whose results a test sets, and a status manager that records.
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import type { PodStatusManager } from "../../src/status/pod-status-manager";
import { podKey } from "../../src/api/pod";
import { workerAnswers, type EvictOptions, type PodWorkerState, type PodWorkerView, type PodWorkers, type UpdatePodOptions } from "../../src/agent/pod-workers";
import type { PodFailure } from "../../src/status/api-status";
import type { SourceReport } from "../../src/config/pod-config";
import type { PodSource } from "../../src/config/types";
import type { PodSourceName } from "../../src/manifest/types";
import { PodStatusCache } from "../../src/pleg/cache";
import type { RelistStats } from "../../src/pleg/types";
import type { PlegMode, PodLifecycleEvent, PodLifecycleEventGenerator, PodStatus } from "../../src/pleg/types";
import type { PodProber, ProbeResult, ProbeType, ProbeUpdate, RunningContainer } from "../../src/prober/types";
import type { Clock } from "../../src/util/clock";
import { BoundedQueue } from "../../src/util/queue";

/** A source that sends what the test tells it to, once started. */
export class FakeSource implements PodSource {
  private feed: ((r: SourceReport) => void) | undefined;
  started = false;
  stopped = false;
  problemList: string[] = [];
  constructor(readonly name: PodSourceName) {}
  start(feed: (r: SourceReport) => void): void {
    this.started = true;
    this.feed = feed;
  }
  stop(): void {
    this.stopped = true;
    this.feed = undefined;
  }
  problems(): string[] {
    return this.problemList;
  }
  /** Sends the source's full set (a complete one unless said otherwise). */
  send(pods: Pod[], complete = true): void {
    if (!this.feed) throw new Error(`source ${this.name} is not started`);
    this.feed({ source: this.name, pods, errors: [], complete });
  }
}

/**
 * A PLEG with no runtime: the test sets pod statuses (as a relist would) and emits events. A pod
 * relist request stamps the pod's entry as current, as the real relist does.
 */
export class FakePleg implements PodLifecycleEventGenerator {
  readonly events = new BoundedQueue<PodLifecycleEvent>(1000);
  private readonly statusCache = new PodStatusCache();
  readonly relistStats: RelistStats = { lastRelistTime: 0, lastRelistDurationMs: 0, relists: 0, podRelists: 0, relistErrors: 0 };
  readonly relistRequests: string[] = [];
  mode: PlegMode | undefined = "generic";
  health = { ok: true, message: "ok" };
  constructor(private readonly clock: Clock) {}
  get cache() {
    return this.statusCache;
  }
  async run(signal: AbortSignal): Promise<void> {
    this.relist();
    await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
    this.events.close();
  }
  /** A full relist that changed nothing: every entry is current as of now. */
  relist(): void {
    this.relistStats.lastRelistTime = this.clock.now();
    this.relistStats.relists++;
    this.statusCache.updateTime(this.clock.now());
  }
  setStatus(uid: string, status: PodStatus | undefined): void {
    this.statusCache.set(uid, status, undefined, this.clock.now());
  }
  emit(type: PodLifecycleEvent["type"], pod: { uid: string; name?: string; namespace?: string }): void {
    this.events.push({ type, pod: { uid: pod.uid, name: pod.name ?? "web", namespace: pod.namespace ?? "default" }, mode: "generic", time: this.clock.now() });
  }
  async requestPodRelist(uid: string): Promise<void> {
    this.relistRequests.push(uid);
    this.statusCache.touch(uid, this.clock.now());
  }
  healthy(): { ok: boolean; message: string } {
    return this.health;
  }
}

/** Records what the sync loop asked of the workers; pods due at the next tick are set by the test. */
export class FakePodWorkers implements PodWorkers {
  readonly calls: string[] = [];
  due: string[] = [];
  private readonly known = new Map<string, PodWorkerState>();
  updatePod(o: UpdatePodOptions): void {
    const uid = o.pod.metadata?.uid ?? "";
    this.calls.push(`${o.type}${o.remove ? "+remove" : ""} ${uid}`);
    const s = this.known.get(uid);
    if (s) s.pod = o.pod;
    else
      this.known.set(uid, {
        uid,
        fullName: podKey(o.pod),
        pod: o.pod,
        phase: "syncing",
        removed: false,
        waiting: new Map(),
        lastSyncTime: 0,
        syncs: 0,
        seen: "",
      });
    if (o.type === "kill") {
      this.known.get(uid)!.phase = "terminating";
      if (o.remove) this.known.get(uid)!.removed = true;
    }
  }
  syncPod(uid: string): void {
    this.calls.push(`sync ${uid}`);
  }
  reconcile(pod: Pod): void {
    this.calls.push(`reconcile ${pod.metadata?.uid}`);
  }
  reject(pod: Pod, failure: PodFailure): void {
    this.calls.push(`reject ${pod.metadata?.uid} ${failure.reason}`);
    const uid = pod.metadata?.uid ?? "";
    this.known.set(uid, {
      uid,
      fullName: podKey(pod),
      pod,
      phase: "terminated",
      removed: false,
      waiting: new Map(),
      failed: failure,
      rejected: true,
      lastSyncTime: 0,
      syncs: 0,
      seen: "",
    });
  }
  evictPod(uid: string, o: EvictOptions): boolean {
    const s = this.known.get(uid);
    if (!s || s.phase !== "syncing") return false;
    this.calls.push(`evict ${uid} ${o.status.reason} grace=${o.gracePeriodSeconds}`);
    s.phase = "terminating";
    s.failed = o.status;
    s.evicted = { gracePeriodSeconds: o.gracePeriodSeconds };
    return true;
  }
  restartPod(uid: string): boolean {
    const s = this.known.get(uid);
    if (!s || s.phase !== "terminated" || s.removed) return false;
    this.calls.push(`restart ${uid}`);
    this.known.set(uid, { uid, fullName: s.fullName, pod: s.pod, phase: "syncing", removed: false, waiting: new Map(), lastSyncTime: 0, syncs: 0, seen: "" });
    return true;
  }
  getDuePods(): string[] {
    return this.due.splice(0);
  }
  states(): PodWorkerView[] {
    return [...this.known.values()];
  }
  get(uid: string): PodWorkerView | undefined {
    return this.known.get(uid);
  }
  knows(uid: string): boolean {
    return this.known.has(uid);
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
  idle(): Promise<void> {
    return Promise.resolve();
  }
}

/** A prober without workers: results are what the test sets; updates are sent by the test. */
export class FakeProber implements PodProber {
  readonly results = new Map<string, ProbeResult>();
  readonly synced: string[] = [];
  readonly removed: string[] = [];
  constructor(readonly sendUpdate: (u: ProbeUpdate) => void) {}
  syncPod(pod: Pod, _ip: string, _running: RunningContainer[]): void {
    this.synced.push(pod.metadata?.uid ?? "");
  }
  stopLivenessAndStartup(): void {}
  removePod(podUid: string): void {
    this.removed.push(podUid);
  }
  /** How many times housekeeping asked for the probe workers of forgotten pods to stop. */
  cleanups = 0;
  cleanupPods(): void {
    this.cleanups++;
  }
  result(containerId: string, type: ProbeType): ProbeResult | undefined {
    return this.results.get(`${containerId}/${type}`);
  }
  readiness(): boolean | undefined {
    return undefined;
  }
  started(): boolean | undefined {
    return undefined;
  }
  async stop(): Promise<void> {}
}

/** Records every status the agent reports. */
export class FakeStatusManager implements PodStatusManager {
  readonly set: { name: string; phase: string }[] = [];
  readonly terminated: string[] = [];
  readonly removed: string[] = [];
  setPodStatus(pod: Pod, status: ApiPodStatus): void {
    this.set.push({ name: pod.metadata?.name ?? "", phase: status.phase ?? "" });
  }
  terminatePod(pod: Pod): void {
    this.terminated.push(pod.metadata?.name ?? "");
  }
  removePod(pod: Pod): void {
    this.removed.push(pod.metadata?.name ?? "");
  }
}
