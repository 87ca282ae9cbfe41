// ExecLimiter: the node's capacity for exec probes, shared by every probe worker of the agent.
//
// Every exec probe is a CRI ExecSync, which the runtime serves with a `runc exec` (a fork, a Go
// process, namespaces joined): tens of milliseconds of CPU each. The kubelet sends them unbounded,
// and its exec probes are a known CPU cost (k/k #82440). Here, at most `slots` exec probes are in the
// runtime at once and the others wait in a first-come, first-served queue:
//
//   acquire ──slot free, its turn──▶ run ──the runtime answers (not: the prober gave up)──▶ end ─▶ next
//
// A waiting probe keeps its place however long it waits: the ticks its worker misses meanwhile are
// the probes skipped (dropped, as Go's ticker drops them for a kubelet worker whose probe overran),
// and its timeout has not started. Giving up a waiter at its next tick and queueing it again at the
// back was tried and is unfair: on a saturated node the probes that had just run queued ahead of
// those that had just given up, and the same pods won every round while others never turned Ready.
//
// A slot is held until the runtime answers the ExecSync, not until the probe's timeout: an ExecSync
// the agent has given up on still runs in the runtime, and a new one on top of it is how a node
// collapses (the agent before this limiter gave up on each ExecSync at the timeout and sent the next:
// at 50 exec probes a second on 2 cores the abandoned ones piled up in containerd, no probe succeeded,
// no pod was Ready, and pods would not even start or be removed in minutes; bench/probes.ts). For
// the same reason one probe (its worker) has at most one ExecSync in the runtime: while its last one
// has not returned, its next attempt is skipped (ProbeSkippedError), not stacked. A skipped probe
// never ran: the agent, not the container, was short of time, so the attempt is thrown away as an
// errored one is (k/k worker.go doProbe) and moves no threshold.
//
// The limiter also remembers how long recent ExecSyncs took, the evidence for the one question a
// timeout raises: was it this container, or the runtime being slow for everyone? `runtimeWasSlow`
// answers the second when most other containers' ExecSyncs in the same time were slow too. Slots
// being busy is no such evidence: a container whose probe hangs holds a slot for its whole timeout,
// and "the slots were full" would excuse exactly the containers that fill them.
import { type Clock, formatDuration } from "../util";

/** A probe that could not be run, through no fault of its container: thrown away, never retried. */
export class ProbeSkippedError extends Error {}

/** One ExecSync in the runtime, from when it got its slot until the runtime answered. */
export interface ExecRun {
  readonly containerId: string;
  /** Whose probe it is (its worker): one ExecSync each. */
  readonly owner: unknown;
  readonly startedAt: number;
  endedAt?: number;
}

interface Waiter {
  owner: unknown;
  containerId: string;
  resolve(run: ExecRun): void;
  reject(err: unknown): void;
  signal?: AbortSignal;
  onAbort: () => void;
}

/** How many finished ExecSyncs are kept as evidence: a few seconds of a busy node. */
const RECENT_RUNS = 512;

export class ExecLimiter {
  private readonly running = new Set<ExecRun>();
  /** Finished runs, oldest first: the last RECENT_RUNS at least (trimmed in batches). */
  private recent: ExecRun[] = [];
  private readonly queue: Waiter[] = [];

  constructor(
    /** ExecSyncs in the runtime at once. */
    readonly slots: number,
    private readonly clock: Clock,
  ) {
    if (!(slots >= 1)) throw new RangeError(`exec probe slots must be at least 1, not ${slots}`);
  }

  /** ExecSyncs in the runtime now. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Probes waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * A slot for one ExecSync of `owner`'s probe in the container: at once when one is free and nobody
   * is waiting, else after the probes ahead of it. Rejects with ProbeSkippedError at once when the
   * owner's previous ExecSync is still in the runtime, and with the signal's reason when it aborts
   * (the worker stopped). The caller must `end` the run when the runtime answers.
   */
  acquire(owner: unknown, containerId: string, signal?: AbortSignal): Promise<ExecRun> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const previous = this.previousOf(owner);
    if (previous) return Promise.reject(previous);
    if (this.queue.length === 0 && this.running.size < this.slots) return Promise.resolve(this.start(owner, containerId));
    return new Promise<ExecRun>((resolve, reject) => {
      const w: Waiter = {
        owner,
        containerId,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.leave(w);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", w.onAbort, { once: true });
      this.queue.push(w);
    });
  }

  /** The runtime answered (or the call failed): the slot goes to the next waiter. */
  end(run: ExecRun): void {
    if (!this.running.delete(run)) return;
    run.endedAt = this.clock.now();
    this.recent.push(run);
    if (this.recent.length > RECENT_RUNS * 2) this.recent = this.recent.slice(-RECENT_RUNS);
    this.admit();
  }

  /**
   * Whether `run`, which timed out after `timeoutMs`, timed out because the runtime was slow for
   * every container rather than because of its own: more than half of the other containers'
   * ExecSyncs that overlapped it took at least half that timeout (those still in the runtime count
   * by how long they have been there). Only those that started at least that long ago count: one
   * that started in the last moment could not have been slow yet, and would tip the count towards
   * "quick" just as the runtime recovers. No other container's ExecSync to compare with is no
   * evidence: the timeout is the container's, as the kubelet would count it.
   */
  runtimeWasSlow(run: ExecRun, timeoutMs: number): boolean {
    const slowMs = timeoutMs / 2;
    const startedBy = this.clock.now() - slowMs;
    let peers = 0;
    let slow = 0;
    for (let i = this.recent.length - 1; i >= 0; i--) {
      const r = this.recent[i]!;
      if (r.endedAt! <= run.startedAt) break;
      if (r.containerId === run.containerId || r.startedAt > startedBy) continue;
      peers++;
      if (r.endedAt! - r.startedAt >= slowMs) slow++;
    }
    for (const r of this.running) {
      if (r.containerId === run.containerId || r.startedAt > startedBy) continue;
      peers++;
      slow++;
    }
    return peers > 0 && slow * 2 > peers;
  }

  /** The skip when the owner's last ExecSync is still in the runtime. */
  private previousOf(owner: unknown): ProbeSkippedError | undefined {
    for (const r of this.running) {
      if (r.owner === owner)
        return new ProbeSkippedError(
          `not run: this probe's previous exec, started ${formatDuration(this.clock.now() - r.startedAt)} ago, has not returned from the runtime`,
        );
    }
    return undefined;
  }

  private start(owner: unknown, containerId: string): ExecRun {
    const run: ExecRun = { owner, containerId, startedAt: this.clock.now() };
    this.running.add(run);
    return run;
  }

  private leave(w: Waiter): void {
    const i = this.queue.indexOf(w);
    if (i >= 0) this.queue.splice(i, 1);
    w.signal?.removeEventListener("abort", w.onAbort);
  }

  /** Gives free slots to the waiters, in order; one whose probe is still in the runtime is skipped. */
  private admit(): void {
    while (this.running.size < this.slots && this.queue.length > 0) {
      const w = this.queue[0]!;
      this.leave(w);
      const previous = this.previousOf(w.owner);
      if (previous) w.reject(previous);
      else w.resolve(this.start(w.owner, w.containerId));
    }
  }
}
