// A GetContainerEvents stream a test drives (the fake runtime's containerEvents): push events, fail
// it, or let the consumer close it.
import type { ContainerEvent, ContainerEventStream } from "../../src/cri";
import { grpcStatusError } from "./grpc";

/** A GetContainerEvents stream the test drives: push events, fail it, or let the consumer close it. */
export class FakeEventStream implements ContainerEventStream {
  done = false;
  private queue: ContainerEvent[] = [];
  private error: Error | undefined;
  private wake: (() => void) | undefined;

  push(ev: ContainerEvent): void {
    this.queue.push(ev);
    this.wake?.();
  }
  fail(code: number, details: string): void {
    this.error = grpcStatusError("GetContainerEvents", code, details);
    this.done = true;
    this.wake?.();
  }
  close(): void {
    this.done = true;
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
