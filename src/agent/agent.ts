// Agent: the syncLoop and everything it drives. Pod sources feed PodConfig; its updates, PLEG events,
// probe results, a 1 s tick (work due: backoffs, retries) and 2 s housekeeping (orphans, container GC)
// drive the pod workers; the workers sync pods through PodSyncer; the ProbeManager's workers follow
// each sync. The agent is what the HTTP server sees (AgentView).
import { join } from "node:path";
import type { Node, Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import type { PodConfig, PushSource } from "../config";
import type { PodSourceName } from "../manifest/types";
import type { PodStatusReader } from "../pleg/cache";
import type { Pleg } from "../pleg/pleg";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { apiTime } from "../util/time";
import { ProbeManager } from "../prober/manager";
import type { RunningContainer } from "../prober/manager";
import type { ProbeObservation, ProbeSeed, ProbeUpdate } from "../prober/types";
import { ContainerNotes } from "./container-notes";
import { Backoff } from "./backoff";
import { PodSyncer, type SyncRuntime } from "./pod-sync";
import { PodWorkers, type PodWorkerState } from "./pod-workers";
import type { RuntimeConfigOptions } from "./runtime-config";
import { computeApiPodStatus } from "./status";

export interface AgentHooks {
  /** A pod's containers all started for the first time: seconds since the agent first saw it. */
  podStarted?(pod: Pod, seconds: number): void;
  containerRestarted?(pod: Pod, container: string): void;
  /** A pod is gone for good: its containers and sandboxes removed. */
  podRemoved?(pod: Pod): void;
  /** The status computed after a sync of the pod (the status manager writes it to the API server). */
  podStatus?(pod: Pod, status: ApiPodStatus): void;
  /** Everything of the pod has stopped (deleted, or removed from its source). */
  podTerminated?(pod: Pod, status: ApiPodStatus): void;
  /** Every probe attempt that counted (prober_probe_total, prober_probe_duration_seconds). */
  probeObserved?(o: ProbeObservation): void;
  afterHousekeeping?(agent: Agent): void;
}

export interface AgentOptions {
  /** The CRI calls a pod sync makes: the CriClient on a node, a fake in tests. */
  runtime: SyncRuntime;
  pleg: Pleg;
  config: PodConfig;
  push?: PushSource;
  /** Sources that must have sent their first set before orphans are cleaned up. */
  sources: PodSourceName[];
  clock: Clock;
  log: Logger;
  runtimeConfig: RuntimeConfigOptions;
  /** The kubelet's syncFrequency: every pod is synced at least this often (1 min, plus 0–50% jitter). */
  syncFrequencyMs?: number;
  housekeepingPeriodMs?: number;
  node: () => Promise<Node>;
  hooks?: AgentHooks;
  /** Where the agent keeps what must outlive it (container readiness); in memory only without. */
  stateDir?: string;
}

/** How long a stopping agent waits for syncs and probes in flight. */
export const SHUTDOWN_GRACE_MS = 10_000;

export class Agent {
  readonly workers: PodWorkers;
  readonly syncer: PodSyncer;
  readonly probes: ProbeManager;
  private readonly notes: ContainerNotes;
  private readonly startedAt: number;
  private readonly crashBackoff: Backoff;
  private readonly imageBackoff: Backoff;
  private lastLoop = 0;
  private allSourcesSeen = false;
  private timers: Timer[] = [];
  private readonly started = new Set<string>();
  private readonly nextResync = new Map<string, number>();

  constructor(private readonly o: AgentOptions) {
    this.startedAt = o.clock.now();
    this.notes = new ContainerNotes(o.stateDir ? join(o.stateDir, "container-notes.json") : undefined, o.log);
    this.probes = new ProbeManager({
      runner: o.runtime,
      clock: o.clock,
      log: o.log,
      onUpdate: (u) => this.onProbeUpdate(u),
      observe: (ob) => o.hooks?.probeObserved?.(ob),
    });
    this.crashBackoff = new Backoff(o.clock);
    this.imageBackoff = new Backoff(o.clock);
    this.syncer = new PodSyncer(o.runtime, o.clock, this.crashBackoff, this.imageBackoff, o.runtimeConfig, o.log, (pod, c) => o.hooks?.containerRestarted?.(pod, c));
    this.workers = new PodWorkers(
      {
        syncPod: (pod, st) => this.syncer.syncPod(pod, st, (_name, id) => this.probeFailure(id)),
        killPod: (pod, st, grace) => this.syncer.killPod(pod, st, grace),
        removePod: (uid, st) => this.syncer.removePod(uid, st),
        relistPod: (uid) => o.pleg.requestPodRelist(uid, undefined, o.pleg.mode ?? "generic"),
      },
      o.pleg.cache,
      o.clock,
      o.log,
    );
    this.workers.onSynced = (s) => this.afterSync(s);
  }

  /** Runs the sync loop until the signal aborts. Pods keep running when it stops. */
  async run(signal: AbortSignal): Promise<void> {
    const { config, pleg, clock } = this.o;
    const unsubscribe = config.onUpdate((u) => {
      for (const pod of u.pods) {
        const uid = pod.metadata?.uid ?? "";
        switch (u.op) {
          case "ADD":
          case "UPDATE":
            // A pod the API server is deleting, or that has already finished (a restarted agent lists
            // Succeeded and Failed pods too), is never started: the kubelet's pod workers only let
            // such a pod terminate.
            if (pod.metadata?.deletionTimestamp || isTerminalPhase(pod.status?.phase)) this.workers.terminate(uid, { remove: false, pod });
            else this.workers.sync(pod);
            break;
          case "RECONCILE":
            this.workers.reconcile(pod);
            break;
          case "DELETE":
            this.workers.terminate(uid, { remove: false, pod });
            break;
          case "REMOVE":
            this.workers.terminate(uid, { remove: true, pod });
            break;
        }
      }
    });
    const plegDone = pleg.run(signal).catch((err) => this.o.log.error(`PLEG stopped: ${(err as Error).message}`));
    const events = (async () => {
      for await (const e of pleg.events) this.workers.syncUid(e.pod.uid);
    })();
    const every = (ms: number, fn: () => void) => {
      const tick = () => {
        if (signal.aborted) return;
        try {
          fn();
        } catch (err) {
          this.o.log.error(`${(err as Error).message}`);
        }
        this.timers.push(clock.setTimer(ms, tick));
      };
      this.timers.push(clock.setTimer(ms, tick));
    };
    every(1000, () => this.syncTick());
    every(this.o.housekeepingPeriodMs ?? 2000, () => void this.housekeeping());
    await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
    for (const t of this.timers) t.cancel();
    unsubscribe();
    // In-flight work gets a bounded time to finish: a runtime that hangs (an overloaded containerd can
    // leave a call open for minutes) must not keep the agent from stopping. The pods run on either way,
    // and whatever a sync left half done is adopted by the next start, as after kill -9.
    const drained = Promise.all([plegDone, events, this.workers.idle(), this.probes.stop()]).then(() => true);
    let timer: Timer | undefined;
    const late = new Promise<false>((resolve) => (timer = clock.setTimer(SHUTDOWN_GRACE_MS, () => resolve(false))));
    const finished = await Promise.race([drained, late]);
    timer?.cancel();
    if (!finished) this.o.log.warn(`stopping with work still in flight after ${SHUTDOWN_GRACE_MS / 1000}s (the runtime is not answering); the next start adopts what runs`);
  }

  /** A probe result changed: the kubelet's probe-result channels into syncLoopIteration. */
  private onProbeUpdate(u: ProbeUpdate): void {
    if (u.result === "failure" && (u.probeType === "liveness" || u.probeType === "startup")) {
      const policy = this.workers.get(u.podUid)?.pod.spec?.restartPolicy ?? "Always";
      const message = `Container ${u.containerName} failed ${u.probeType} probe, will ${policy === "Never" ? "not " : ""}be restarted: ${u.reason}`;
      this.notes.update(u.containerId, { killMessage: message });
      this.o.log.info(`pod ${u.namespace}/${u.podName}: ${message}`);
    } else if (u.probeType === "readiness") {
      this.o.log.info(`pod ${u.namespace}/${u.podName}: container ${u.containerName} is ${u.result === "success" ? "ready" : `not ready: ${u.reason}`}`);
    }
    this.workers.syncUid(u.podUid);
  }

  /** Which probe has failed for a running instance, if any: the sync kills it (computePodActions). */
  private probeFailure(containerId: string): "liveness" | "startup" | undefined {
    if (this.probes.result(containerId, "liveness") === "failure") return "liveness";
    if (this.probes.result(containerId, "startup") === "failure") return "startup";
    return undefined;
  }

  /**
   * The newest instance of each container, where it runs: what the probe workers bind to (the
   * ProbeManager picks the probed ones, app containers and sidecars; names are unique in a pod).
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

  /** Pods whose backoff or retry is due, and the periodic resync of every pod. */
  private syncTick(): void {
    const now = this.o.clock.now();
    this.lastLoop = now;
    const period = this.o.syncFrequencyMs ?? 60_000;
    for (const s of this.workers.states()) {
      if (s.retryAt !== undefined && s.retryAt <= now) {
        s.retryAt = undefined;
        this.workers.syncUid(s.uid);
        continue;
      }
      const due = this.nextResync.get(s.uid);
      if (due === undefined) this.nextResync.set(s.uid, now + period * (1 + Math.random() * 0.5));
      else if (due <= now) {
        this.nextResync.set(s.uid, now + period * (1 + Math.random() * 0.5));
        this.workers.syncUid(s.uid);
      }
    }
  }

  /** Orphaned runtime pods are killed and removed once every source has been seen; dead containers GC'd. */
  private async housekeeping(): Promise<void> {
    const { config, pleg } = this.o;
    if (config.seenAllSources(this.o.sources)) {
      if (!this.allSourcesSeen) {
        this.allSourcesSeen = true;
        this.o.log.info(`every pod source has been seen (${this.o.sources.join(", ")}): runtime pods that none of them has are removed from now on`);
      }
      const known = new Set(this.workers.states().map((s) => s.uid));
      for (const uid of pleg.cache.uids()) {
        const st = pleg.cache.get(uid)?.status;
        if (known.has(uid) || !st) continue;
        if (st.containerStatuses.length === 0 && st.sandboxStatuses.length === 0) continue;
        this.o.log.info(`pod ${st.namespace}/${st.name} (${uid.slice(0, 8)}) runs but no source has it: removing it`);
        const orphan: Pod = { metadata: { name: st.name, namespace: st.namespace, uid }, spec: { containers: [] } };
        this.workers.terminate(uid, { remove: true, pod: orphan });
      }
    }
    for (const s of this.workers.states()) {
      if (s.phase !== "syncing") continue;
      const st = pleg.cache.get(s.uid)?.status;
      if (st) await this.syncer.garbageCollect(st).catch((err) => this.o.log.warn(`container GC of ${s.fullName}: ${(err as Error).message}`));
    }
    // Notes of containers the runtime no longer has go, once a relist since the start has listed it.
    if (pleg.relistStats.lastRelistTime >= this.startedAt) {
      const live = new Set<string>();
      for (const uid of pleg.cache.uids()) for (const c of pleg.cache.get(uid)?.status?.containerStatuses ?? []) live.add(c.id);
      this.notes.prune(live);
    }
    this.crashBackoff.gc();
    this.imageBackoff.gc();
    this.o.hooks?.afterHousekeeping?.(this);
  }

  private afterSync(s: PodWorkerState): void {
    const st = this.o.pleg.cache.get(s.uid)?.status;
    // The probe workers follow the runtime's containers (the kubelet's probeManager.AddPod and
    // StartupProbe/Liveness stop on termination, RemovePod when the pod is gone).
    if (s.phase === "syncing") this.probes.syncPod(s.pod, st?.ips[0] ?? "", this.runningContainers(s.uid), (c) => this.probeSeed(c.id));
    else if (s.phase === "terminating") this.probes.stopLivenessAndStartup(s.uid);
    else if (s.phase === "terminated" && s.removed) this.probes.removePod(s.uid);
    s.apiStatus = this.apiStatus(s);
    this.noteReported(s.apiStatus);
    this.o.hooks?.podStatus?.(s.pod, s.apiStatus);
    if (s.phase === "terminated") this.o.hooks?.podTerminated?.(s.pod, s.apiStatus);
    if (!this.started.has(s.uid) && s.apiStatus.containerStatuses?.every((c) => c.state?.running) && st) {
      this.started.add(s.uid);
      this.o.hooks?.podStarted?.(s.pod, (this.o.clock.now() - Date.parse(s.seen)) / 1000);
    }
    if (s.phase === "terminated" && s.removed) {
      this.started.delete(s.uid);
      this.nextResync.delete(s.uid);
      this.o.hooks?.podRemoved?.(s.pod);
    }
  }

  private apiStatus(s: PodWorkerState) {
    const probed = (name: string) => [...(s.pod.spec?.containers ?? []), ...(s.pod.spec?.initContainers ?? [])].find((c) => c.name === name);
    return computeApiPodStatus({
      pod: s.pod,
      // Until the prober has the pod (just after a restart) the last reported value stands.
      ready: (name, id) => this.probes.readiness(s.uid, name, id) ?? this.notes.get(id)?.ready ?? !(probed(name)?.readinessProbe || probed(name)?.startupProbe),
      started: (name, id) => this.probes.started(s.uid, name, id) ?? this.notes.get(id)?.started ?? !probed(name)?.startupProbe,
      killMessage: (id) => this.notes.get(id)?.killMessage,
      runtime: this.o.pleg.cache.get(s.uid)?.status,
      waiting: s.waiting,
      hostIP: this.o.runtimeConfig.hostIP,
      startTime: s.seen,
      failed: s.failed,
      now: apiTime(this.o.clock.now()),
      previous: s.apiStatus,
    });
  }

  /**
   * Keeps what the status says of each running container for the next start. After syncs only, not
   * on every GET /pods: a readiness change always wakes the pod's worker, so it lands here too.
   */
  private noteReported(status: ApiPodStatus): void {
    for (const c of [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])]) {
      if (c.state?.running && c.containerID) this.notes.update(c.containerID.replace(/^[a-z]+:\/\//, ""), { ready: c.ready, started: c.started });
    }
  }

  /** Every pod with its live status, computed from the newest cached runtime status. */
  pods(): Pod[] {
    return this.workers.states().map((s) => {
      s.apiStatus = this.apiStatus(s);
      return { apiVersion: "v1", kind: "Pod", ...s.pod, status: s.apiStatus };
    });
  }

  /** The v1 Node describing this host. */
  node(): Promise<Node> {
    return this.o.node();
  }

  healthChecks(): { name: string; ok: boolean; message: string }[] {
    const pleg = this.o.pleg.healthy();
    const since = this.o.clock.now() - this.lastLoop;
    const loopOk = this.lastLoop !== 0 && since < 2 * 60_000;
    return [
      { name: "ping", ok: true, message: "ok" },
      { name: "PLEG", ok: pleg.ok, message: pleg.message },
      { name: "syncloop", ok: loopOk, message: loopOk ? "ok" : this.lastLoop === 0 ? "sync loop has not run yet" : `sync loop last ran ${Math.round(since / 1000)}s ago` },
    ];
  }
}

function isTerminalPhase(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}
