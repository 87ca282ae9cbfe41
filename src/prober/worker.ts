// ProbeWorker: one probe type of one container *instance*, probed every period until it is stopped
// (the kubelet's instanceBoundWorker, k/k pkg/kubelet/prober). A restarted container is not this
// worker's business: it gets new workers. The first probe waits out initialDelaySeconds measured
// from when the container started; a worker adopted after an agent restart adds a random part of one
// period, so a node's worth of probes does not fire at once. A settled startup probe, and a failed
// liveness probe, end the worker: the container has started (others take over) or is about to be
// killed, and probing a container being stopped only produces noise.
//
// Where the agent, not the container, is short of time (exec probes share the node's ExecLimiter):
// - a probe waits for an exec slot before its timeout starts; the ticks that pass meanwhile are
//   skipped probes (dropped, as a kubelet worker's ticker drops them when a probe overruns), and
//   one that cannot run at all (its last ExecSync is still in the runtime) is thrown away, as an
//   errored attempt is (worker.go doProbe), moving no threshold;
// - the period's grid starts from when the first probe actually ran, not when it was due: a burst
//   of containers whose first probes queued together comes out of the queue spread over the time it
//   took, and stays spread, instead of queueing together again every period;
// - a timeout while the runtime was slow for every container (an `excused` attempt) is thrown away
//   too, but at most failureThreshold times in a row: an excuse buys a container time, never
//   immunity. A liveness probe is never failed by a slow runtime shorter than that, and a container
//   that really hangs while every other one does too is still restarted, failureThreshold periods
//   later than the kubelet would.
import type { Container, Pod } from "kubernetes-types/core/v1";
import type { Clock } from "../util";
import type { Prober } from "./prober";
import { probeAction, probeOf, probeTiming } from "./spec";
import { ProbeThresholds } from "./thresholds";
import { ProbeTicker } from "./ticker";
import type { ProbeAttempt, ProbeResult, ProbeTiming, ProbeType } from "./types";

/** The container instance a worker probes, fixed for the worker's life. */
export interface ProbeTarget {
  pod: Pod;
  container: Container;
  containerId: string;
  /** What network probes dial: the pod IP, or 127.0.0.1 for a host-network pod. */
  host: string;
  /** When the container started (ms since the epoch): initialDelaySeconds counts from here. */
  startedAt: number;
}

export interface ProbeWorkerOptions {
  type: ProbeType;
  target: ProbeTarget;
  prober: Prober;
  clock: Clock;
  /** The cached result the thresholds start from (the initial value, or a seed). */
  initial: ProbeResult;
  /** Found running (agent restart) rather than just started: spread the first probe over a period. */
  adopted: boolean;
  /** Uniform in [0, 1): Math.random, or fixed in tests. */
  random: () => number;
  /** Every attempt that was not thrown away (for metrics). */
  onAttempt(w: ProbeWorker, a: ProbeAttempt): void;
  /** An attempt thrown away: errored, skipped, or an excused timeout. */
  onDiscarded?(w: ProbeWorker, a: ProbeAttempt): void;
  /** An attempt waited for an exec slot past `missed` of the worker's ticks: those probes were skipped. */
  onMissedTicks?(w: ProbeWorker, missed: number, queuedMs: number): void;
  /** The thresholds settled on a result (it may equal the cached one). */
  onSettled(w: ProbeWorker, result: "success" | "failure", a: ProbeAttempt): void;
  /** The worker has ended, stopped or by itself. */
  onExit(w: ProbeWorker): void;
}

export class ProbeWorker {
  readonly type: ProbeType;
  readonly target: ProbeTarget;
  readonly adopted: boolean;
  readonly timing: ProbeTiming;
  private readonly thresholds: ProbeThresholds;
  private readonly ac = new AbortController();
  private running: Promise<void> | undefined;
  /** Excused timeouts thrown away in a row: since the last answer that needed no excuse. */
  private excusedInARow = 0;

  constructor(private readonly o: ProbeWorkerOptions) {
    this.type = o.type;
    this.target = o.target;
    this.adopted = o.adopted;
    const spec = probeOf(o.target.container, o.type);
    if (!spec) throw new Error(`container ${o.target.container.name} has no ${o.type} probe`);
    this.timing = probeTiming(spec);
    this.thresholds = new ProbeThresholds(this.timing.successThreshold, this.timing.failureThreshold, o.initial);
  }

  get containerId(): string {
    return this.target.containerId;
  }

  start(): void {
    this.running ??= this.run();
  }

  /** Stops probing and aborts a probe in flight; resolves when the worker has ended. */
  stop(): Promise<void> {
    this.ac.abort();
    return this.running ?? Promise.resolve();
  }

  /** The remaining initial delay from the container's start, plus the adoption jitter. */
  firstProbeDelay(): number {
    const { clock, target, random } = this.o;
    const delay = Math.max(0, target.startedAt + this.timing.initialDelayMs - clock.now());
    return delay + (this.adopted ? random() * this.timing.periodMs : 0);
  }

  private async run(): Promise<void> {
    const { clock } = this.o;
    const signal = this.ac.signal;
    try {
      const first = this.firstProbeDelay();
      if (first > 0) await clock.sleep(first, signal);
      const due = clock.now();
      let ticker: ProbeTicker | undefined;
      while (!signal.aborted) {
        const { more, queuedMs } = await this.probeOnce();
        ticker ??= new ProbeTicker(clock, this.timing.periodMs, due + queuedMs);
        if (!more) break;
        const wait = ticker.untilNextTick();
        if (wait > 0) await clock.sleep(wait, signal);
      }
    } catch {
      // Stopped while waiting.
    } finally {
      this.o.onExit(this);
    }
  }

  /** One attempt through the thresholds; `more` is false when the worker is done. */
  private async probeOnce(): Promise<{ more: boolean; queuedMs: number }> {
    const { target, prober } = this.o;
    const spec = probeOf(target.container, this.type)!;
    const attempt = await prober.attempt(() => probeAction(spec, target.container, target), this.timing.timeoutMs, this.ac.signal, { owner: this });
    const queuedMs = attempt.queuedMs ?? 0;
    if (this.ac.signal.aborted) return { more: false, queuedMs };
    const missed = Math.floor(queuedMs / this.timing.periodMs);
    if (missed > 0) this.o.onMissedTicks?.(this, missed, queuedMs);
    // An errored or skipped probe is thrown away, as the kubelet throws errors away: no threshold
    // moves, no metric counts it. So is an excused timeout, up to the bound; past it, excusable
    // timeouts count until an answer that needs no excuse (a skip is no answer) ends the run.
    if (attempt.result !== "error" && attempt.excused === undefined) this.excusedInARow = 0;
    const excused = attempt.excused !== undefined && this.excusedInARow < this.timing.failureThreshold;
    if (attempt.result === "error" || excused) {
      if (excused) this.excusedInARow++;
      this.o.onDiscarded?.(this, attempt);
      return { more: true, queuedMs };
    }
    this.o.onAttempt(this, attempt);
    const step = this.thresholds.observe(attempt.result);
    if (!step.settled) return { more: true, queuedMs };
    this.o.onSettled(this, attempt.result, attempt);
    if (this.type === "startup") return { more: false, queuedMs };
    return { more: !(this.type === "liveness" && attempt.result === "failure"), queuedMs };
  }
}
