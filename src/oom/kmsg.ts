// The kernel's log as records (/dev/kmsg, Documentation/ABI/testing/dev-kmsg): each read(2) returns one
// record "<prio>,<seq>,<usec since boot>,<flags>[,…];<message>\n" followed by continuation lines
// (" KEY=value") that are dropped here. The file is opened O_NONBLOCK and drained on a timer: a blocking
// read would sit in a thread-pool thread that nothing can cancel and keep the process alive at stop
// (seen with Bun's createReadStream on this device). EPIPE means records were overwritten before they
// were read (the ring buffer wrapped): the next read goes on from the oldest record still there.
import { closeSync, constants, openSync, readSync } from "node:fs";

export interface KmsgRecord {
  /** Sequence number: increases by one per record, so a gap tells of lost records. */
  seq: number;
  /** Microseconds since boot (CLOCK_MONOTONIC), when the kernel logged it. */
  usecSinceBoot: number;
  message: string;
}

/** The seam between the OOM watcher and the kernel: the real /dev/kmsg, or a fake in tests. */
export interface KernelLog {
  /** Every record logged since the previous call (all of the buffer the first time). */
  drain(): KmsgRecord[];
  close(): void;
}

/** Parses one record as the kernel writes it; undefined for anything else. */
export function parseKmsgRecord(text: string): KmsgRecord | undefined {
  const semi = text.indexOf(";");
  if (semi < 0) return undefined;
  const fields = text.slice(0, semi).split(",");
  if (fields.length < 4) return undefined;
  const seq = Number(fields[1]);
  const usecSinceBoot = Number(fields[2]);
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(usecSinceBoot)) return undefined;
  const end = text.indexOf("\n", semi);
  return { seq, usecSinceBoot, message: text.slice(semi + 1, end < 0 ? undefined : end) };
}

/** A record is at most 1 KiB of text plus its prefix (PRINTK_MESSAGE_MAX); read(2) needs room for one. */
const RECORD_BUFFER_BYTES = 8192;
/** At most this many records per drain, so one drain never holds the event loop long. */
const MAX_RECORDS_PER_DRAIN = 10_000;

export class KmsgReader implements KernelLog {
  private fd: number | undefined;
  private readonly buf = Buffer.alloc(RECORD_BUFFER_BYTES);

  constructor(path = "/dev/kmsg") {
    this.fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  }

  drain(): KmsgRecord[] {
    const out: KmsgRecord[] = [];
    if (this.fd === undefined) return out;
    while (out.length < MAX_RECORDS_PER_DRAIN) {
      let n: number;
      try {
        n = readSync(this.fd, this.buf, 0, this.buf.length, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EPIPE") continue;
        if (code === "EAGAIN" || code === "EWOULDBLOCK") break;
        throw err;
      }
      if (n <= 0) break;
      const r = parseKmsgRecord(this.buf.toString("utf8", 0, n));
      if (r) out.push(r);
    }
    return out;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
