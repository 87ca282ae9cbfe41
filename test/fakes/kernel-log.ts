// A kernel log for the OOM watcher's tests: records are appended by the test and drained once each.
import type { KernelLog, KmsgRecord } from "../../src/oom/kmsg";

export class FakeKernelLog implements KernelLog {
  private pending: KmsgRecord[] = [];
  private seq = 0;
  closed = false;
  failNext: Error | undefined;

  /** Logs lines as the kernel would, at this time (µs since boot). */
  log(usecSinceBoot: number, ...messages: string[]): void {
    for (const message of messages) this.pending.push({ seq: this.seq++, usecSinceBoot, message });
  }

  drain(): KmsgRecord[] {
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    const out = this.pending;
    this.pending = [];
    return out;
  }

  close(): void {
    this.closed = true;
  }
}
