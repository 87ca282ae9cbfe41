// ContainerEventWatcher: keeps a CRI GetContainerEvents stream open and hands each event on as a
// hint. It never touches the pod status cache. After `maxRetries` consecutive stream failures, or at
// once when the runtime answers UNIMPLEMENTED, it gives up and says why (the caller falls back to
// 1 s relisting). Reconnects follow the KEP-3386 beta schedule: at once, then 1 s, 2 s, 4 s, 8 s.
import { type ContainerEvent, type CriClient, CriError, UnavailableError, UnimplementedError } from "../cri";
import type { Clock } from "../util";

export type EventStreamRuntime = Pick<CriClient, "containerEvents">;

export interface WatcherCallbacks {
  /** A runtime event: a hint that a pod changed. */
  onEvent(ev: ContainerEvent): void;
  /** The runtime accepted the stream (or kept it open through the grace period). */
  onStreaming(): void;
  /** The stream failed; attempt counts consecutive failures. The kubelet relists at once here. */
  onStreamError(err: CriError, attempt: number): void;
}

export interface WatcherOptions {
  maxRetries?: number;
  /**
   * containerd sends no response headers until its first event, so a stream that has not failed
   * within this time (or that delivered an event) is taken as accepted. UNIMPLEMENTED comes back
   * in milliseconds.
   */
  acceptGraceMs?: number;
  /** A stream that stayed up this long resets the failure count (the kubelet never resets it). */
  stableAfterMs?: number;
  retryDelaysMs?: number[];
}

export type WatchEnd = { kind: "stopped" } | { kind: "unimplemented"; reason: string } | { kind: "failed"; reason: string };

export class ContainerEventWatcher {
  private readonly maxRetries: number;
  private readonly acceptGraceMs: number;
  private readonly stableAfterMs: number;
  private readonly retryDelaysMs: number[];

  constructor(
    private readonly runtime: EventStreamRuntime,
    private readonly clock: Clock,
    private readonly cb: WatcherCallbacks,
    opts: WatcherOptions = {},
  ) {
    this.maxRetries = opts.maxRetries ?? 5;
    this.acceptGraceMs = opts.acceptGraceMs ?? 1000;
    this.stableAfterMs = opts.stableAfterMs ?? 30_000;
    this.retryDelaysMs = opts.retryDelaysMs ?? [0, 1000, 2000, 4000, 8000];
  }

  /** Watches until the signal aborts (stopped) or the stream cannot be kept (unimplemented, failed). */
  async run(signal: AbortSignal): Promise<WatchEnd> {
    let failures = 0;
    while (!signal.aborted) {
      const openedAt = this.clock.now();
      const err = await this.streamOnce(signal);
      if (!err) return { kind: "stopped" };
      if (err instanceof UnimplementedError) {
        return { kind: "unimplemented", reason: `the runtime does not implement GetContainerEvents (${err.details})` };
      }
      if (this.clock.now() - openedAt >= this.stableAfterMs) failures = 0;
      failures++;
      this.cb.onStreamError(err, failures);
      if (failures >= this.maxRetries) {
        return { kind: "failed", reason: `the event stream failed ${failures} times in a row, last: ${err.message}` };
      }
      try {
        await this.clock.sleep(this.retryDelaysMs[Math.min(failures - 1, this.retryDelaysMs.length - 1)] ?? 0, signal);
      } catch {
        return { kind: "stopped" };
      }
    }
    return { kind: "stopped" };
  }

  /** One stream's life; resolves with its error, or undefined when stopped by the signal. */
  private async streamOnce(signal: AbortSignal): Promise<CriError | undefined> {
    const stream = this.runtime.containerEvents();
    const onAbort = () => stream.close();
    signal.addEventListener("abort", onAbort, { once: true });
    let ended = false;
    let announced = false;
    const announce = () => {
      if (ended || announced || signal.aborted) return;
      announced = true;
      this.cb.onStreaming();
    };
    const grace = this.clock.setTimer(this.acceptGraceMs, announce);
    try {
      for await (const ev of stream) {
        announce();
        this.cb.onEvent(ev);
      }
      if (signal.aborted) return undefined;
      return new UnavailableError("GetContainerEvents", 14, "the runtime closed the event stream");
    } catch (err) {
      if (signal.aborted) return undefined;
      return err instanceof CriError ? err : new UnavailableError("GetContainerEvents", 14, String(err));
    } finally {
      ended = true;
      grace.cancel();
      signal.removeEventListener("abort", onAbort);
    }
  }
}
