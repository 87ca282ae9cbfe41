// Fakes of the node shutdown manager's seams: a ShutdownTarget whose pods terminate when the test says
// (recording each stop with its status and grace period), and a ShutdownSignal standing for logind
// (its delay, its lock, and PrepareForShutdown events the test emits).
import type { Pod } from "kubernetes-types/core/v1";
import type { ShutdownSignal, ShutdownTarget } from "../../src/nodeshutdown";

export class FakeShutdownTarget implements ShutdownTarget {
  readonly stopped: Array<{ name: string; reason: string; message: string; gracePeriodSeconds: number }> = [];
  private readonly pending = new Map<string, () => void>();

  constructor(public pods: Pod[]) {}

  activePods(): Pod[] {
    return this.pods;
  }

  terminatePod(pod: Pod, status: { reason: string; message: string }, gracePeriodSeconds: number): Promise<boolean> {
    const name = pod.metadata?.name ?? "";
    this.stopped.push({ name, ...status, gracePeriodSeconds });
    return new Promise((resolve) => this.pending.set(name, () => resolve(true)));
  }

  /** The pod's termination finishes. */
  finish(name: string): void {
    this.pending.get(name)?.();
    this.pending.delete(name);
  }

  /** Names whose termination has not finished yet. */
  stopping(): string[] {
    return [...this.pending.keys()];
  }
}

export class FakeShutdownSignal implements ShutdownSignal {
  delaySeconds: number;
  /** The lock held now, and every change to it in order. */
  locked = false;
  readonly calls: string[] = [];
  unavailableReason: string | undefined;
  /** What overrideInhibitDelay does to the delay (logind may not take it). */
  acceptOverride = true;
  private emit: ((v: boolean) => void) | undefined;
  private watching: (() => void) | undefined;

  constructor(delaySeconds = 5) {
    this.delaySeconds = delaySeconds;
  }

  unavailable(): string | undefined {
    return this.unavailableReason;
  }
  async inhibitDelayMaxSeconds(): Promise<number> {
    return this.delaySeconds;
  }
  async overrideInhibitDelay(seconds: number): Promise<void> {
    this.calls.push(`override ${seconds}`);
    if (this.acceptOverride) this.delaySeconds = seconds;
  }
  async inhibit(): Promise<void> {
    this.calls.push("inhibit");
    this.locked = true;
  }
  async release(): Promise<void> {
    this.calls.push("release");
    this.locked = false;
  }
  watch(onEvent: (shuttingDown: boolean) => void, signal: AbortSignal): Promise<void> {
    this.emit = onEvent;
    return new Promise((resolve) => {
      this.watching = resolve;
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
  }
  /** logind's PrepareForShutdown(v). */
  prepareForShutdown(v: boolean): void {
    if (!this.emit) throw new Error("nobody watches PrepareForShutdown yet");
    this.emit(v);
  }
  get isWatched(): boolean {
    return this.emit !== undefined && this.watching !== undefined;
  }
}
