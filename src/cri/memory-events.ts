// MemoryEventStream: the in-memory runtime's GetContainerEvents stream (memory-runtime.ts), what the
// CriClient's containerEvents() is over a socket: an async iterable of ContainerEventResponses that
// the consumer closes, or that fails with a CriError (as a broken connection's stream does).
// Events wait in a queue until the consumer takes them; a closed or failed stream drops its queue.
import type { ContainerEventStream } from "./client";
import { toCriError } from "./errors";
import type { ContainerEvent } from "./types";

export class MemoryEventStream implements ContainerEventStream {
  /** Closed by the consumer, or failed: takes no more events. */
  done = false;
  private queue: ContainerEvent[] = [];
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  push(ev: ContainerEvent): void {
    if (this.done) return;
    this.queue.push(ev);
    this.wake?.();
  }
  /** Ends the stream with the gRPC status a runtime would send (14 UNAVAILABLE, 12 UNIMPLEMENTED…). */
  fail(code: number, details: string): void {
    this.error = toCriError("GetContainerEvents", { code, details });
    this.done = true;
    this.wake?.();
  }
  close(): void {
    this.done = true;
    this.queue = [];
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<ContainerEvent> {
    for (;;) {
      const ev = this.queue.shift();
      if (ev) {
        yield ev;
        continue;
      }
      if (this.error) throw this.error;
      if (this.done) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }
}

/** The runtime's open streams: each event goes to every one; closed ones are dropped as events are sent. */
export class MemoryEventHub {
  private readonly streams = new Set<MemoryEventStream>();

  open(): MemoryEventStream {
    const s = new MemoryEventStream();
    this.streams.add(s);
    return s;
  }
  /** Whether any stream may be listening (an event is built only then). */
  get listening(): boolean {
    return this.streams.size > 0;
  }
  /** Streams open now. */
  get openStreams(): number {
    let n = 0;
    for (const s of this.streams) if (!s.done) n++;
    return n;
  }
  send(ev: ContainerEvent): void {
    for (const s of this.streams) {
      if (s.done) this.streams.delete(s);
      else s.push(ev);
    }
  }
  closeAll(): void {
    for (const s of this.streams) s.close();
    this.streams.clear();
  }
}
