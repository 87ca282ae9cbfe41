// ProbeManager: the probe workers of every pod, driven by the agent's pod sync (the kubelet's
// instanceBoundManager). Each probe type of each container has at most one worker, bound to one
// container instance (ID); a replaced instance's workers and results go with it. The manager caches
// each instance's results (the kubelet's results managers), tells the agent's syncLoop when a result
// changes, answers the readiness and started queries the pod status needs, and reports every attempt
// to an observer for metrics.
//
// After an agent restart, running containers are *adopted* with what the agent last reported for
// them (a ProbeSeed): a ready container stays ready and an unready one stays unready until probed
// again. The kubelet got this wrong both ways: ready pods went NotReady on a kubelet restart
// (k/k #100277) and NotReady pods were briefly Ready before their workers existed (#135795).
//
// Exec probes of every pod share the node's ExecLimiter (execSlots ExecSyncs in the runtime at once,
// the others queued). A node without probed pods pays for none of this: the prober and the limiter
// are made with the first worker, and there are no timers without workers.
import { availableParallelism } from "node:os";
import type { Container, Pod } from "kubernetes-types/core/v1";
import { type Clock, formatDuration, type Logger } from "../util";
import type { ContainerCommandRunner } from "./exec";
import { ExecLimiter } from "./exec-limiter";
import { Prober } from "./prober";
import { oneLine, probeOf } from "./spec";
import { initialResult } from "./thresholds";
import type { PodProber, ProbeAttempt, ProbeObservation, ProbeResult, ProbeSeed, ProbeType, ProbeUpdate, RunningContainer } from "./types";

export type { RunningContainer } from "./types";
import { ProbeWorker, type ProbeTarget } from "./worker";
import { containerReference, type EventRecorder } from "../events";

export interface ProbeManagerOptions {
  /** Runs exec probes: the CriClient. */
  runner: ContainerCommandRunner;
  clock: Clock;
  /** A container's cached result changed: the syncLoop input. Not called for initial values or seeds. */
  onUpdate?: (u: ProbeUpdate) => void;
  /** Every attempt that was not thrown away: prober_probe_total and the duration histogram. */
  observe?: (o: ProbeObservation) => void;
  log?: Logger;
  /** For the adopted workers' first-probe jitter; Math.random unless a test fixes it. */
  random?: () => number;
  /** Exec probes in the runtime at once, node-wide; defaultExecSlots() unless given. */
  execSlots?: number;
  /** Unhealthy and ProbeWarning events on the probed container; none by default. */
  events?: EventRecorder;
}

/**
 * Exec probes in the runtime at once: two per CPU. Each is a `runc exec`, mostly CPU in the runtime;
 * on a 2-core node containerd 1.6 served the most ExecSyncs a second at 2 to 8 at once, and more
 * only made each slower (measured in bench/probes.ts).
 */
export function defaultExecSlots(): number {
  return Math.max(2, 2 * availableParallelism());
}

/** How often the manager says that probes were thrown away because the agent or runtime was short of time. */
const DISCARD_REPORT_MS = 60_000;

/** A probed container's key in the manager's maps. */
const slotKey = (podUid: string, container: string) => `${podUid}/${container}`;

/** Containers that can have probes: app containers and sidecars (init containers that always restart). */
function probedContainers(pod: Pod): Container[] {
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always");
  return [...sidecars, ...(pod.spec?.containers ?? [])].filter((c) => c.livenessProbe || c.readinessProbe || c.startupProbe);
}

function findContainer(pod: Pod, name: string): Container | undefined {
  return pod.spec?.containers.find((c) => c.name === name) ?? pod.spec?.initContainers?.find((c) => c.name === name);
}

/** Results a container instance cannot come back from: its worker is not restarted. */
const isTerminal = (type: ProbeType, r: ProbeResult) => (type === "liveness" || type === "startup") && r === "failure";

interface PodEntry {
  pod: Pod;
  /** What network probes dial. */
  host: string;
}

export class ProbeManager implements PodProber {
  private prober: Prober | undefined;
  private limiter: ExecLimiter | undefined;
  private readonly pods = new Map<string, PodEntry>();
  /** Workers by pod/container, then probe type. */
  private readonly workers = new Map<string, Map<ProbeType, ProbeWorker>>();
  /** Cached results by container ID, then probe type. */
  private readonly results = new Map<string, Map<ProbeType, ProbeResult>>();
  /** The instance each pod/container's probes are bound to. */
  private readonly instances = new Map<string, string>();
  /** Pods whose liveness and startup probes were stopped for termination. */
  private readonly terminating = new Set<string>();
  private readonly random: () => number;
  /** Containers that started before this manager existed were started by a previous agent: adopted. */
  private readonly createdAt: number;
  /** Attempts thrown away for lack of time since the last report: skipped, excused. */
  private discarded = { skipped: 0, excused: 0, since: 0 };

  constructor(private readonly o: ProbeManagerOptions) {
    this.random = o.random ?? Math.random;
    this.createdAt = o.clock.now();
  }

  /** The node's exec slots, once a worker exists: ExecSyncs in the runtime now, and probes waiting. */
  execLoad(): { slots: number; inFlight: number; waiting: number } | undefined {
    const l = this.limiter;
    return l && { slots: l.slots, inFlight: l.inFlight, waiting: l.waiting };
  }

  /**
   * Reconciles a pod's probe workers with its running containers (the kubelet's EnsureProbes), on
   * every pod sync: a running container already tracked keeps its workers (and gets any it is newly
   * due); a probed container not running loses its workers and results; a new instance gets workers.
   * A container that was running before this manager existed is *adopted*: its results start from
   * `seed` (what the previous agent reported for it) and its first probe is spread over one period.
   * `podIP` is the sandbox's IP.
   */
  syncPod(pod: Pod, podIP: string, running: RunningContainer[], seed?: (c: RunningContainer) => ProbeSeed | undefined): void {
    const uid = pod.metadata?.uid ?? "";
    this.setPod(pod, podIP);
    const probed = probedContainers(pod);
    for (const c of probed) {
      const r = running.find((x) => x.name === c.name);
      if (r) this.startInstance(uid, c, r, seed);
      else this.stopContainer(uid, c.name);
    }
    // Containers whose probes the spec no longer has.
    for (const name of this.keysOf(uid)) if (!probed.some((c) => c.name === name)) this.stopContainer(uid, name);
  }

  /** The pod is terminating: its liveness and startup probes stop, so graceful shutdown is not cut short. */
  stopLivenessAndStartup(podUid: string): void {
    this.terminating.add(podUid);
    for (const [key, slot] of this.workers) {
      if (!key.startsWith(`${podUid}/`)) continue;
      for (const type of ["liveness", "startup"] as const) {
        const w = slot.get(type);
        if (w) {
          slot.delete(type);
          void w.stop();
        }
      }
    }
  }

  /** Stops a container's workers and forgets its results (it stopped, or no longer has probes). */
  stopContainer(podUid: string, containerName: string): void {
    const key = slotKey(podUid, containerName);
    const slot = this.workers.get(key);
    this.workers.delete(key);
    for (const w of slot?.values() ?? []) void w.stop();
    const id = this.instances.get(key);
    this.instances.delete(key);
    if (id !== undefined) this.forgetInstance(id);
  }

  /** The pod is gone: every worker stops and every result is forgotten. */
  removePod(podUid: string): void {
    const entry = this.pods.get(podUid);
    const names = new Set([...(entry ? probedContainers(entry.pod).map((c) => c.name) : []), ...this.keysOf(podUid)]);
    for (const name of names) this.stopContainer(podUid, name);
    this.pods.delete(podUid);
    this.terminating.delete(podUid);
  }

  /** Housekeeping: removes every pod not in `desired`. */
  cleanupPods(desired: ReadonlySet<string>): void {
    for (const uid of [...this.pods.keys()]) if (!desired.has(uid)) this.removePod(uid);
  }

  /**
   * Readiness of a container for its status (the kubelet's UpdatePodStatus): not ready until its
   * startup probe passed; then its readiness result, or ready when it has no readiness probe.
   * `containerId` picks the instance (the running one); without it, the instance probes are bound
   * to. Undefined when the manager has never been given the pod: the caller must not guess.
   */
  readiness(podUid: string, containerName: string, containerId?: string): boolean | undefined {
    const c = this.containerSpec(podUid, containerName);
    if (!c) return undefined;
    const id = containerId ?? this.instances.get(slotKey(podUid, containerName));
    if (c.startupProbe && (id === undefined || this.results.get(id)?.get("startup") !== "success")) return false;
    if (!c.readinessProbe) return true;
    return id !== undefined && this.results.get(id)?.get("readiness") === "success";
  }

  /** containerStatuses[].started: true once the startup probe passed, or when there is none. */
  started(podUid: string, containerName: string, containerId?: string): boolean | undefined {
    const c = this.containerSpec(podUid, containerName);
    if (!c) return undefined;
    if (!c.startupProbe) return true;
    const id = containerId ?? this.instances.get(slotKey(podUid, containerName));
    return id !== undefined && this.results.get(id)?.get("startup") === "success";
  }

  /** The cached result of one probe of a container instance. */
  result(containerId: string, type: ProbeType): ProbeResult | undefined {
    return this.results.get(containerId)?.get(type);
  }

  /** The workers running now: a read-only view of the manager's state (the prober's tests assert on it). */
  activeWorkers(): { podUid: string; containerName: string; containerId: string; type: ProbeType }[] {
    return [...this.workers.values()].flatMap((slot) =>
      [...slot.values()].map((w) => ({
        podUid: w.target.pod.metadata?.uid ?? "",
        containerName: w.target.container.name,
        containerId: w.containerId,
        type: w.type,
      })),
    );
  }

  /** Stops every worker and waits for probes in flight to end (the agent's shutdown). */
  async stop(): Promise<void> {
    const all = [...this.workers.values()].flatMap((slot) => [...slot.values()]);
    this.workers.clear();
    await Promise.all(all.map((w) => w.stop()));
  }

  // ---- internals ----

  private setPod(pod: Pod, podIP: string): void {
    const uid = pod.metadata?.uid ?? "";
    // As the kubelet's probes of a host-network pod reach it on the node itself.
    const host = pod.spec?.hostNetwork ? "127.0.0.1" : podIP;
    this.pods.set(uid, { pod, host });
  }

  private containerSpec(podUid: string, name: string): Container | undefined {
    const entry = this.pods.get(podUid);
    return entry && findContainer(entry.pod, name);
  }

  private keysOf(podUid: string): string[] {
    const names = new Set<string>();
    for (const key of [...this.workers.keys(), ...this.instances.keys()]) if (key.startsWith(`${podUid}/`)) names.add(key.slice(podUid.length + 1));
    return [...names];
  }

  private target(podUid: string, container: Container, r: RunningContainer): ProbeTarget {
    const entry = this.pods.get(podUid)!;
    return { pod: entry.pod, container, containerId: r.id, host: entry.host, startedAt: r.startedAt };
  }

  private startInstance(uid: string, c: Container, r: RunningContainer, seed: ((c: RunningContainer) => ProbeSeed | undefined) | undefined): void {
    const adopted = r.startedAt < this.createdAt;
    if (!this.results.has(r.id)) this.seedInstance(c, r.id, adopted ? seed?.(r) : undefined);
    this.startProbes(this.target(uid, c, r), adopted);
  }

  /** A new instance's results start from the seed (adoption) or the probe types' initial values. */
  private seedInstance(c: Container, id: string, seed: ProbeSeed | undefined): void {
    const values = new Map<ProbeType, ProbeResult>();
    if (c.startupProbe) values.set("startup", seed?.started ? "success" : initialResult("startup"));
    if (c.readinessProbe) values.set("readiness", seed?.ready ? "success" : initialResult("readiness"));
    // Never kill a container over anything that happened before the agent restarted.
    if (c.livenessProbe) values.set("liveness", initialResult("liveness"));
    this.results.set(id, values);
  }

  private forgetInstance(id: string): void {
    this.results.delete(id);
  }

  /** Installs the workers an instance should have now, replacing an earlier instance's. */
  private startProbes(target: ProbeTarget, adopted: boolean): void {
    const uid = target.pod.metadata?.uid ?? "";
    const key = slotKey(uid, target.container.name);
    const previous = this.instances.get(key);
    if (previous !== undefined && previous !== target.containerId) {
      const stale = this.workers.get(key);
      this.workers.delete(key);
      for (const w of stale?.values() ?? []) void w.stop();
      this.forgetInstance(previous);
    }
    this.instances.set(key, target.containerId);
    // Readiness and liveness are gated on the startup probe: they start when it passes.
    if (target.container.startupProbe && this.result(target.containerId, "startup") !== "success") {
      this.ensureWorker("startup", target, adopted);
      return;
    }
    this.ensureWorker("readiness", target, adopted);
    this.ensureWorker("liveness", target, adopted);
  }

  private ensureWorker(type: ProbeType, target: ProbeTarget, adopted: boolean): void {
    if (!probeOf(target.container, type)) return;
    const uid = target.pod.metadata?.uid ?? "";
    if (type !== "readiness" && this.terminating.has(uid)) return;
    const key = slotKey(uid, target.container.name);
    let slot = this.workers.get(key);
    if (!slot) this.workers.set(key, (slot = new Map()));
    const existing = slot.get(type);
    if (existing?.containerId === target.containerId) {
      // Same instance: keep probing, unless the probe itself was edited (the container runs on,
      // since probes are not part of its hash): then a worker with the new spec takes over.
      if (JSON.stringify(probeOf(existing.target.container, type)) === JSON.stringify(probeOf(target.container, type))) return;
      void existing.stop();
    }
    const cached = this.result(target.containerId, type) ?? initialResult(type);
    // A verdict this instance cannot come back from: the syncLoop is about to kill it.
    if (isTerminal(type, cached)) return;
    const w = new ProbeWorker({
      type,
      target,
      prober: this.proberForWorkers(),
      clock: this.o.clock,
      initial: cached,
      adopted,
      random: this.random,
      onAttempt: (worker, a) => this.observed(worker, a),
      onDiscarded: (worker, a) => this.discardedAttempt(worker, a),
      onMissedTicks: (_worker, missed) => this.shortOfTime("skipped", missed, `a probe waited for an exec slot past ${missed} of its periods`),
      onSettled: (worker, result, a) => this.settled(worker, result, a),
      onExit: (worker) => {
        if (slot.get(worker.type) === worker) slot.delete(worker.type);
      },
    });
    slot.set(type, w);
    w.start();
  }

  /** The prober and the node's exec slots, made with the first worker. */
  private proberForWorkers(): Prober {
    if (!this.prober) {
      this.limiter = new ExecLimiter(this.o.execSlots ?? defaultExecSlots(), this.o.clock);
      this.prober = new Prober(this.o.runner, this.o.clock, this.limiter);
    }
    return this.prober;
  }

  /** An attempt thrown away: at debug, and counted when it was for lack of time. */
  private discardedAttempt(w: ProbeWorker, a: ProbeAttempt): void {
    const md = w.target.pod.metadata;
    this.o.log?.debug("probe attempt not counted", {
      probe: w.type,
      pod: `${md?.namespace}/${md?.name}`,
      container: w.target.container.name,
      output: a.output,
      excused: a.excused,
    });
    if (a.skipped) this.shortOfTime("skipped", 1, a.output);
    else if (a.excused !== undefined) this.shortOfTime("excused", 1, `${a.output} (${a.excused})`);
  }

  /**
   * Probes skipped, or timeouts not counted, because the agent or the runtime was short of time: a
   * warning, but at most one a minute with the counts, since on a saturated node it happens many
   * times a second.
   */
  private shortOfTime(kind: "skipped" | "excused", count: number, last: string): void {
    const d = this.discarded;
    d[kind] += count;
    const now = this.o.clock.now();
    if (d.since !== 0 && now - d.since < DISCARD_REPORT_MS) return;
    const load = this.execLoad();
    this.o.log?.warn("exec probes short of time (the runtime was slow for every container)", {
      over: d.since ? formatDuration(now - d.since) : undefined,
      skipped: d.skipped,
      timeoutsNotCounted: d.excused,
      slots: load?.slots,
      waiting: load?.waiting,
      last,
    });
    this.discarded = { skipped: 0, excused: 0, since: now };
  }

  private observed(w: ProbeWorker, a: ProbeAttempt): void {
    const md = w.target.pod.metadata;
    // The kubelet's prober records every counted attempt that did not succeed (prober.go probe):
    // "Liveness probe failed: <output>", "… probe errored: …", and "… probe warning: …" for a redirect.
    if (this.o.events && (a.result !== "success" || a.warning)) {
      const type = `${w.type[0]!.toUpperCase()}${w.type.slice(1)}`;
      const ref = containerReference(w.target.pod, w.target.container.name);
      // An exec probe's event quotes the command's output alone, as the kubelet's (pkg/probe/exec).
      if (a.result === "failure") this.o.events.event(ref, "Warning", "Unhealthy", `${type} probe failed: ${a.commandOutput ?? a.output}`);
      else if (a.result === "error") this.o.events.event(ref, "Warning", "Unhealthy", `${type} probe errored: ${a.output}`);
      else this.o.events.event(ref, "Warning", "ProbeWarning", `${type} probe warning: ${a.output}`);
    }
    this.o.observe?.({
      probeType: w.type,
      result: a.result === "success" ? "successful" : "failed",
      durationSeconds: a.latencyMs / 1000,
      podUid: md?.uid ?? "",
      namespace: md?.namespace ?? "",
      podName: md?.name ?? "",
      containerName: w.target.container.name,
    });
  }

  /** The thresholds settled: cache the result, tell the syncLoop if it changed, chain startup. */
  private settled(w: ProbeWorker, result: "success" | "failure", a: ProbeAttempt): void {
    const key = slotKey(w.target.pod.metadata?.uid ?? "", w.target.container.name);
    // A worker whose instance was replaced while its probe ran has nothing to say any more.
    if (this.workers.get(key)?.get(w.type) !== w) return;
    const values = this.results.get(w.containerId) ?? new Map<ProbeType, ProbeResult>();
    this.results.set(w.containerId, values);
    const before = values.get(w.type);
    values.set(w.type, result);
    if (before !== result) {
      const md = w.target.pod.metadata;
      const spec = probeOf(w.target.container, w.type);
      const grace = w.type !== "readiness" && result === "failure" ? spec?.terminationGracePeriodSeconds : undefined;
      this.o.log?.debug("probe result changed", {
        probe: w.type,
        pod: `${md?.namespace}/${md?.name}`,
        container: w.target.container.name,
        from: before ?? "none",
        to: result,
        output: a.output || undefined,
      });
      this.o.onUpdate?.({
        podUid: md?.uid ?? "",
        namespace: md?.namespace ?? "",
        podName: md?.name ?? "",
        containerName: w.target.container.name,
        containerId: w.containerId,
        probeType: w.type,
        result,
        reason: a.output,
        message: `${w.type[0]!.toUpperCase()}${w.type.slice(1)} probe ${result === "success" ? "succeeded" : "failed"}${a.output ? `: ${oneLine(a.output)}` : ""}`,
        ...(grace !== undefined && grace !== null ? { terminationGracePeriodSeconds: grace } : {}),
        time: this.o.clock.now(),
      });
    }
    if (w.type === "startup" && result === "success") {
      this.ensureWorker("readiness", w.target, w.adopted);
      this.ensureWorker("liveness", w.target, w.adopted);
    }
  }
}
