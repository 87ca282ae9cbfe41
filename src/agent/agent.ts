// Agent: the syncLoop and everything it drives. Pod sources feed PodConfig; its updates, PLEG events,
// a 1 s tick (work due: backoffs, retries) and 2 s housekeeping (orphans, container GC) drive the pod
// workers; the workers sync pods through PodSyncer. The agent is what the HTTP server sees (AgentView).
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { PodConfig, PushSource } from "../config";
import type { PodSourceName } from "../manifest/types";
import type { PodStatusReader } from "../pleg/cache";
import type { Pleg } from "../pleg/pleg";
import type { Clock, Timer } from "../util/clock";
import type { Logger } from "../util/log";
import { apiTime } from "../util/time";
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
}

/**
 * The PLEG's cache as the pod workers read it: no status counts as current before a relist that began
 * once the agent was up. As the kubelet's cache, whose GetNewerThan blocks until its first relist, so
 * that a pod's first sync sees what already runs (a restarted agent adopts its pods, never starts them
 * a second time) even when a source delivers the pod before the PLEG has listed the runtime.
 */
function firstRelistGate(cache: PodStatusReader, since: number): PodStatusReader {
  return {
    get: (uid) => cache.get(uid),
    uids: () => cache.uids(),
    getNewerThan: (uid, minTime, signal) => cache.getNewerThan(uid, Math.max(minTime, since), signal),
  };
}

export class Agent {
  readonly workers: PodWorkers;
  readonly syncer: PodSyncer;
  private readonly crashBackoff: Backoff;
  private readonly imageBackoff: Backoff;
  private lastLoop = 0;
  private allSourcesSeen = false;
  private timers: Timer[] = [];
  private readonly started = new Set<string>();
  private readonly nextResync = new Map<string, number>();

  constructor(private readonly o: AgentOptions) {
    this.crashBackoff = new Backoff(o.clock);
    this.imageBackoff = new Backoff(o.clock);
    this.syncer = new PodSyncer(o.runtime, o.clock, this.crashBackoff, this.imageBackoff, o.runtimeConfig, o.log, (pod, c) => o.hooks?.containerRestarted?.(pod, c));
    this.workers = new PodWorkers(
      {
        syncPod: (pod, st) => this.syncer.syncPod(pod, st),
        killPod: (pod, st, grace) => this.syncer.killPod(pod, st, grace),
        removePod: (uid, st) => this.syncer.removePod(uid, st),
        relistPod: (uid) => o.pleg.requestPodRelist(uid, undefined, o.pleg.mode ?? "generic"),
      },
      firstRelistGate(o.pleg.cache, o.clock.now()),
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
          case "RECONCILE":
            this.workers.sync(pod);
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
    await plegDone;
    await events;
    await this.workers.idle();
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
    this.crashBackoff.gc();
    this.imageBackoff.gc();
    this.o.hooks?.afterHousekeeping?.(this);
  }

  private afterSync(s: PodWorkerState): void {
    const st = this.o.pleg.cache.get(s.uid)?.status;
    s.apiStatus = this.apiStatus(s);
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
    return computeApiPodStatus({
      pod: s.pod,
      runtime: this.o.pleg.cache.get(s.uid)?.status,
      waiting: s.waiting,
      hostIP: this.o.runtimeConfig.hostIP,
      startTime: s.seen,
      failed: s.failed,
      now: apiTime(this.o.clock.now()),
      previous: s.apiStatus,
    });
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
