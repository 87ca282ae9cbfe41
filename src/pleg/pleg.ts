// Pleg: the pod lifecycle event generator the agent and `nodeagent pleg watch` run. Generic mode
// relists every second. Evented mode (containerd 1.7+) relists every 300 s and, for each runtime
// event, relists just that pod at once: events are hints, the Relister stays the cache's only
// writer. Auto starts evented and falls back to generic for good, saying why, as the kubelet does.
import type { ContainerEvent, CriError } from "../cri";
import { BoundedQueue, type Clock, formatDuration, type Timer } from "../util";
import { PodStatusCache } from "./cache";
import { ContainerEventWatcher, type EventStreamRuntime, type WatcherOptions } from "./evented";
import { Relister, type RelistRuntime } from "./relist";
import type { PlegMode, PodLifecycleEvent, PodLifecycleEventGenerator, PodStatusReader, RelistStats } from "./types";

export type PlegModeSetting = "auto" | "generic" | "evented";

export interface PlegOptions {
  mode?: PlegModeSetting;
  /** Full relist period in generic mode (the kubelet's genericPlegRelistPeriod, 1 s). */
  relistPeriodMs?: number;
  relistThresholdMs?: number;
  /** Full relist period while the event stream is healthy (eventedPlegRelistPeriod, 300 s). */
  eventedRelistPeriodMs?: number;
  eventedRelistThresholdMs?: number;
  /** The kubelet's plegChannelCapacity. */
  eventCapacity?: number;
  watcher?: WatcherOptions;
  onModeChange?: (change: ModeChange) => void;
  onError?: (what: string, err: unknown) => void;
  /**
   * After every full relist, failed or not: how long it took, and the time since the previous one
   * started (the kubelet's kubelet_pleg_relist_duration_seconds and _interval_seconds).
   */
  onRelist?: (r: { ok: boolean; durationMs: number; intervalMs: number | undefined }) => void;
  /** The event stream was accepted (counts kubelet_evented_pleg_connection_success_count). */
  onStreamConnected?: () => void;
}

export interface ModeChange {
  mode: PlegMode;
  previous: PlegMode | undefined;
  reason: string;
  time: number;
}

export class EventedPlegUnavailableError extends Error {}

export type PlegRuntime = RelistRuntime & EventStreamRuntime;

interface PodRelistRequest {
  sandboxIds: Set<string>;
  requestedAt: number;
}

export class Pleg implements PodLifecycleEventGenerator {
  readonly events: BoundedQueue<PodLifecycleEvent>;
  private readonly statusCache = new PodStatusCache();
  private readonly relister: Relister;
  private readonly opts: Required<Omit<PlegOptions, "watcher" | "onModeChange" | "onError" | "onRelist" | "onStreamConnected">>;
  private activeMode: PlegMode | undefined;
  private periodMs: number;
  private lastRelistEnd = 0;
  private timer: Timer | undefined;
  private wake: (() => void) | undefined;
  private pendingPods = new Map<string, PodRelistRequest>();
  streamErrors = 0;
  runtimeEvents = 0;

  constructor(
    private readonly runtime: PlegRuntime,
    private readonly clock: Clock,
    private readonly options: PlegOptions = {},
  ) {
    this.opts = {
      mode: options.mode ?? "auto",
      relistPeriodMs: options.relistPeriodMs ?? 1000,
      relistThresholdMs: options.relistThresholdMs ?? 3 * 60_000,
      eventedRelistPeriodMs: options.eventedRelistPeriodMs ?? 300_000,
      eventedRelistThresholdMs: options.eventedRelistThresholdMs ?? 10 * 60_000,
      eventCapacity: options.eventCapacity ?? 1000,
    };
    this.events = new BoundedQueue(this.opts.eventCapacity);
    this.periodMs = this.opts.relistPeriodMs;
    this.relister = new Relister(runtime, this.statusCache, clock, (e) => this.events.push(e), options.onError);
  }

  /** The pod status cache, read-only: the relist is its only writer. */
  get cache(): PodStatusReader {
    return this.statusCache;
  }
  get mode(): PlegMode | undefined {
    return this.activeMode;
  }
  get relistStats(): Readonly<RelistStats> {
    return this.relister.stats;
  }
  get relistPeriodMs(): number {
    return this.periodMs;
  }

  /** The kubelet's PLEG health check: the last successful relist must be recent enough. */
  healthy(): { ok: boolean; message: string } {
    const last = this.relister.stats.lastRelistTime;
    if (last === 0) return { ok: false, message: "pleg has yet to be successful" };
    const threshold = this.activeMode === "evented" ? this.opts.eventedRelistThresholdMs : this.opts.relistThresholdMs;
    const ago = this.clock.now() - last;
    return ago > threshold
      ? { ok: false, message: `pleg was last seen active ${formatDuration(ago)} ago; threshold is ${formatDuration(threshold)}` }
      : { ok: true, message: `pleg was last seen active ${formatDuration(ago)} ago` };
  }

  /**
   * Asks for one pod to be relisted now (after a pod worker changed it, or on a runtime event).
   * Requests for a pod that is already waiting are merged into the waiting one.
   */
  requestPodRelist(uid: string, sandboxId?: string, mode: PlegMode = "evented"): Promise<void> {
    const waiting = this.pendingPods.get(uid);
    if (waiting) {
      if (sandboxId) waiting.sandboxIds.add(sandboxId);
      return Promise.resolve();
    }
    const req: PodRelistRequest = { sandboxIds: new Set(sandboxId ? [sandboxId] : []), requestedAt: this.clock.now() };
    this.pendingPods.set(uid, req);
    return this.relister.relistPod(uid, req.sandboxIds, req.requestedAt, mode, () => this.pendingPods.delete(uid));
  }

  reinspectPod(uid: string): void {
    this.relister.reinspect(uid);
  }

  /** Runs until the signal aborts. Throws EventedPlegUnavailableError when mode "evented" cannot stream. */
  async run(signal: AbortSignal): Promise<void> {
    const loop = this.relistLoop(signal);
    if (this.opts.mode === "generic") {
      this.setMode("generic", "mode generic: relisting every " + formatDuration(this.opts.relistPeriodMs));
      await loop;
      return;
    }
    // Until the stream is accepted the relist keeps its 1 s period, so nothing is missed meanwhile.
    const watcherAbort = new AbortController();
    const stopWatcher = () => watcherAbort.abort();
    signal.addEventListener("abort", stopWatcher, { once: true });
    const watcher = new ContainerEventWatcher(
      this.runtime,
      this.clock,
      {
        onEvent: (ev) => this.onRuntimeEvent(ev),
        onStreaming: () => {
          this.options.onStreamConnected?.();
          this.setMode("evented", "the runtime streams container events; full relist every " + formatDuration(this.opts.eventedRelistPeriodMs));
          this.setPeriod(this.opts.eventedRelistPeriodMs);
        },
        onStreamError: (err: CriError, attempt: number) => {
          this.streamErrors++;
          this.options.onError?.(`event stream (failure ${attempt})`, err);
          // As the kubelet: relist everything at once, events may have been lost with the stream.
          this.relistNow();
        },
      },
      this.options.watcher,
    );
    const end = await watcher.run(watcherAbort.signal);
    signal.removeEventListener("abort", stopWatcher);
    if (end.kind !== "stopped") {
      if (this.opts.mode === "evented" && end.kind === "unimplemented" && this.activeMode === undefined) {
        this.stop();
        await loop;
        throw new EventedPlegUnavailableError(`mode evented: ${end.reason}; use --mode auto or generic`);
      }
      this.setMode("generic", `falling back to relisting every ${formatDuration(this.opts.relistPeriodMs)}: ${end.reason}`);
      this.setPeriod(this.opts.relistPeriodMs);
      this.relistNow();
    }
    await loop;
  }

  private stopRequested = false;
  private stop(): void {
    this.stopRequested = true;
    this.relistNow();
  }

  private setMode(mode: PlegMode, reason: string): void {
    const previous = this.activeMode;
    if (previous === mode) return;
    this.activeMode = mode;
    this.options.onModeChange?.({ mode, previous, reason, time: this.clock.now() });
  }

  private onRuntimeEvent(ev: ContainerEvent): void {
    this.runtimeEvents++;
    // A created container is not running yet; its start follows with its own event.
    if (ev.containerEventType === "CONTAINER_CREATED_EVENT") return;
    const sandboxId = ev.podSandboxStatus?.id || undefined;
    const uid = ev.podSandboxStatus?.metadata?.uid || this.relister.podOfContainer(ev.containerId);
    if (!uid) {
      this.relistNow();
      return;
    }
    void this.requestPodRelist(uid, sandboxId, "evented");
  }

  // ---- the full relist loop: wait.Until semantics, the next relist starts a period after the last ends

  private async relistLoop(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    let lastStart: number | undefined;
    while (!signal.aborted && !this.stopRequested) {
      const start = this.clock.now();
      const ok = await this.relister.relist();
      this.lastRelistEnd = this.clock.now();
      this.options.onRelist?.({ ok, durationMs: this.lastRelistEnd - start, intervalMs: lastStart === undefined ? undefined : start - lastStart });
      lastStart = start;
      if (signal.aborted || this.stopRequested) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.schedule();
      });
      this.timer?.cancel();
      this.timer = undefined;
      this.wake = undefined;
    }
    signal.removeEventListener("abort", onAbort);
    this.events.close();
  }

  private schedule(): void {
    this.timer?.cancel();
    const wake = this.wake;
    if (!wake) return;
    const due = this.lastRelistEnd + this.periodMs - this.clock.now();
    this.timer = this.clock.setTimer(Math.max(0, due), wake);
  }

  private setPeriod(ms: number): void {
    this.periodMs = ms;
    this.schedule();
  }

  private relistNow(): void {
    this.wake?.();
  }
}
