// GrpcChannel: gRPC calls (unary and server-streaming) to one unix socket, over the CRI client's own
// HTTP/2 connection (h2-connection.ts), as the gRPC over HTTP/2 protocol (PROTOCOL-HTTP2.md) has
// them: a POST to /<service>/<method> with content-type application/grpc, te: trailers and
// grpc-timeout; messages framed by a compressed flag and a 4-byte length; the status in the
// trailers (grpc-status, percent-encoded grpc-message), or in the headers alone when the call failed
// before any message ("trailers-only").
//
// The channel's life, as grpc-js's channel with the CRI client's options had it:
//  - it connects on the first call, and again on the first call after the connection ended (the
//    runtime restarted, or it sent GOAWAY); a call never waits for a connection that is not there:
//  - a connection that cannot be made fails the call at once with UNAVAILABLE, and calls for the
//    next backoff period (100 ms, doubling to 1 s; reset by a success) fail the same way without
//    trying, so a restarted runtime is reached again within a second;
//  - each call has a deadline (sent as grpc-timeout, and enforced here: the stream is cancelled and
//    the call fails with DEADLINE_EXCEEDED); a message above maxReceiveMessageBytes fails the call
//    with RESOURCE_EXHAUSTED, as grpc-js's grpc.max_receive_message_length did.
// No retries: a failed call fails, and the caller decides (the PLEG relists again, a sync retries).
import { CONNECTION_LOST, H2Connection, type H2Stream, type H2StreamHandler } from "./h2-connection";
import { H2Error } from "./h2-frames";
import type { HeaderField } from "./hpack";
import { GrpcStatus } from "./grpc-status";

/** A failed call: the gRPC status code and the server's (or this side's) message. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${GrpcStatus[code] ?? code}: ${details}`);
  }
}

export interface GrpcChannelOptions {
  /** The largest message accepted (the kubelet's maxMsgSize, 16 MiB). */
  maxReceiveMessageBytes?: number;
  minReconnectBackoffMs?: number;
  maxReconnectBackoffMs?: number;
  userAgent?: string;
  /** How a connection is made; H2Connection.connect by default (tests pass their own). */
  connect?: (socketPath: string) => Promise<H2Connection>;
}

/** A server stream's messages, in order; cancel() ends it (the iteration then throws CANCELLED). */
export interface GrpcServerStream extends AsyncIterable<Buffer> {
  cancel(): void;
}

/** HTTP status → gRPC code, for a response that is not gRPC (http-grpc-status-mapping.md). */
function codeOfHttpStatus(status: number): number {
  switch (status) {
    case 400:
      return GrpcStatus.INTERNAL;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
  }
}

/** RST_STREAM code → gRPC code, as grpc-js maps them. */
function codeOfReset(code: number): number {
  switch (code) {
    case CONNECTION_LOST:
    case H2Error.REFUSED_STREAM:
      return GrpcStatus.UNAVAILABLE;
    case H2Error.CANCEL:
      return GrpcStatus.CANCELLED;
    case H2Error.ENHANCE_YOUR_CALM:
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case H2Error.INADEQUATE_SECURITY:
      return GrpcStatus.PERMISSION_DENIED;
    default:
      return GrpcStatus.INTERNAL;
  }
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** grpc-timeout: at most 8 digits and a unit. */
function grpcTimeout(ms: number): string {
  const n = Math.max(0, Math.ceil(ms));
  return n <= 99_999_999 ? `${n}m` : `${Math.min(99_999_999, Math.ceil(n / 1000))}S`;
}

/**
 * One call's response side: reads the header blocks and the framed messages, and ends exactly once,
 * with the status (undefined for OK).
 */
class ResponseReader implements H2StreamHandler {
  private headersSeen = false;
  /** Received bytes not yet taken as messages, and how many. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The length of the message being received, once its prefix is in. */
  private messageLength: number | undefined;
  private ended = false;
  /** Set by the call once its stream exists: a reader that fails the call resets the stream. */
  cancelStream: () => void = () => {};

  constructor(
    private readonly maxMessageBytes: number,
    private readonly onMessage: (m: Buffer) => void,
    private readonly onEnd: (err: GrpcCallError | undefined) => void,
  ) {}

  end(err: GrpcCallError | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(err);
  }

  onHeaders(fields: HeaderField[], endStream: boolean): void {
    if (this.ended) return;
    const get = (name: string) => fields.find(([n]) => n === name)?.[1];
    if (!this.headersSeen) {
      this.headersSeen = true;
      const status = Number(get(":status"));
      if (status !== 200) {
        this.fail(codeOfHttpStatus(status), `the runtime answered HTTP ${status}${get("grpc-message") ? `: ${percentDecode(get("grpc-message")!)}` : ""}`);
        return;
      }
      const type = get("content-type") ?? "";
      if (!type.startsWith("application/grpc")) {
        this.fail(GrpcStatus.UNKNOWN, `the runtime answered with content-type ${JSON.stringify(type)}, not gRPC`);
        return;
      }
      if (!endStream) return;
    } else if (!endStream) {
      this.fail(GrpcStatus.INTERNAL, "a second header block that does not end the stream");
      return;
    }
    // The trailers (or trailers-only headers).
    const code = get("grpc-status");
    if (code === undefined) {
      this.end(new GrpcCallError(GrpcStatus.UNKNOWN, "the response ended without a grpc-status"));
      return;
    }
    if (this.buffered > 0 || this.messageLength !== undefined) {
      this.end(new GrpcCallError(GrpcStatus.INTERNAL, "the response ended inside a message"));
      return;
    }
    const n = Number(code);
    this.end(n === GrpcStatus.OK ? undefined : new GrpcCallError(Number.isInteger(n) ? n : GrpcStatus.UNKNOWN, percentDecode(get("grpc-message") ?? "")));
  }

  onData(data: Uint8Array, endStream: boolean): void {
    if (this.ended) return;
    if (data.length > 0) {
      this.chunks.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      this.buffered += data.length;
    }
    for (;;) {
      if (this.messageLength === undefined) {
        if (this.buffered < 5) break;
        const prefix = this.take(5);
        if (prefix[0]! & 1) {
          this.fail(GrpcStatus.INTERNAL, "a compressed message, and no compression was offered");
          return;
        }
        this.messageLength = prefix.readUInt32BE(1);
        if (this.messageLength > this.maxMessageBytes) {
          this.fail(GrpcStatus.RESOURCE_EXHAUSTED, `a message of ${this.messageLength} bytes, above the limit of ${this.maxMessageBytes}`);
          return;
        }
      }
      if (this.buffered < this.messageLength) break;
      const message = this.take(this.messageLength);
      this.messageLength = undefined;
      this.onMessage(message);
      if (this.ended) return;
    }
    if (endStream) this.end(new GrpcCallError(GrpcStatus.INTERNAL, "the runtime ended the stream without a status"));
  }

  /**
   * The next n buffered bytes, as a Buffer of their own: a message is joined once, when whole (a
   * large one comes in many DATA frames), and keeps no part of the connection's receive buffers.
   */
  private take(n: number): Buffer {
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const head = this.chunks[0]!;
      const k = Math.min(head.length, n - filled);
      head.copy(out, filled, 0, k);
      filled += k;
      if (k === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(k);
    }
    this.buffered -= n;
    return out;
  }

  onReset(code: number, reason: string): void {
    this.end(new GrpcCallError(codeOfReset(code), code === CONNECTION_LOST ? reason : `${reason} (HTTP/2 error ${code})`));
  }

  private fail(code: number, details: string): void {
    this.cancelStream();
    this.end(new GrpcCallError(code, details));
  }
}

export class GrpcChannel {
  private conn: H2Connection | undefined;
  private connecting: Promise<H2Connection> | undefined;
  /** Every connection not yet closed, the draining ones too (a GOAWAY's, one out of stream ids). */
  private readonly live = new Set<H2Connection>();
  private retryAt = 0;
  private backoffMs: number;
  private lastConnectError = "";
  private closed = false;
  private readonly maxReceive: number;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private readonly connectFn: (socketPath: string) => Promise<H2Connection>;
  private readonly userAgent: string;

  constructor(
    readonly socketPath: string,
    opts: GrpcChannelOptions = {},
  ) {
    this.maxReceive = opts.maxReceiveMessageBytes ?? 4 * 1024 * 1024;
    this.minBackoff = opts.minReconnectBackoffMs ?? 100;
    this.maxBackoff = opts.maxReconnectBackoffMs ?? 1000;
    this.backoffMs = this.minBackoff;
    this.connectFn = opts.connect ?? ((p) => H2Connection.connect(p));
    this.userAgent = opts.userAgent ?? "nodeagent-grpc";
  }

  /** The current connection, made if there is none (see the class comment for the backoff). */
  private connection(): Promise<H2Connection> {
    if (this.closed) return Promise.reject(new GrpcCallError(GrpcStatus.UNAVAILABLE, "the channel is closed"));
    if (this.conn?.usable) return Promise.resolve(this.conn);
    if (this.connecting) return this.connecting;
    if (Date.now() < this.retryAt) return Promise.reject(new GrpcCallError(GrpcStatus.UNAVAILABLE, this.lastConnectError));
    this.connecting = this.connectFn(this.socketPath).then(
      (conn) => {
        this.connecting = undefined;
        this.backoffMs = this.minBackoff;
        this.retryAt = 0;
        if (this.closed) {
          conn.close();
          throw new GrpcCallError(GrpcStatus.UNAVAILABLE, "the channel is closed");
        }
        this.conn = conn;
        this.live.add(conn);
        conn.onClose = () => {
          this.live.delete(conn);
          if (this.conn === conn) this.conn = undefined;
        };
        return conn;
      },
      (err: unknown) => {
        this.connecting = undefined;
        this.lastConnectError = `cannot connect to ${this.socketPath}: ${err instanceof Error ? err.message : String(err)}`;
        this.retryAt = Date.now() + this.backoffMs;
        this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoff);
        throw new GrpcCallError(GrpcStatus.UNAVAILABLE, this.lastConnectError);
      },
    );
    return this.connecting;
  }

  private headers(path: string, timeoutMs: number | undefined): HeaderField[] {
    const h: HeaderField[] = [
      [":method", "POST"],
      [":scheme", "http"],
      [":path", path],
      [":authority", "localhost"],
      ["content-type", "application/grpc"],
      ["te", "trailers"],
      ["user-agent", this.userAgent],
    ];
    if (timeoutMs !== undefined) h.push(["grpc-timeout", grpcTimeout(timeoutMs)]);
    return h;
  }

  /** One request message, framed: not compressed, its length, its bytes. */
  private static frame(message: Uint8Array): Buffer {
    const b = Buffer.allocUnsafe(5 + message.length);
    b[0] = 0;
    b.writeUInt32BE(message.length, 1);
    b.set(message, 5);
    return b;
  }

  /**
   * Gets the connection and opens the call's stream on it, unless the call already ended (`over`).
   * Whatever fails on the way ends the call with UNAVAILABLE: nothing is left to reject unhandled.
   */
  private start(reader: ResponseReader, over: () => boolean, open: (conn: H2Connection) => void): void {
    const fail = (err: unknown) =>
      reader.end(err instanceof GrpcCallError ? err : new GrpcCallError(GrpcStatus.UNAVAILABLE, err instanceof Error ? err.message : String(err)));
    this.connection().then((conn) => {
      if (over()) return;
      try {
        open(conn);
      } catch (err) {
        fail(err);
      }
    }, fail);
  }

  /** A unary call: resolves with the response message's bytes, rejects with a GrpcCallError. */
  unary(path: string, request: Uint8Array, timeoutMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let response: Buffer | undefined;
      let messages = 0;
      let stream: H2Stream | undefined;
      let done = false;
      const reader = new ResponseReader(
        this.maxReceive,
        (m) => {
          messages++;
          response = m;
        },
        (err) => {
          done = true;
          clearTimeout(timer);
          if (err) reject(err);
          else if (messages !== 1 || !response) reject(new GrpcCallError(GrpcStatus.INTERNAL, `a unary call answered with ${messages} messages`));
          else resolve(response);
        },
      );
      const deadline = Date.now() + timeoutMs;
      const timer = setTimeout(() => {
        stream?.cancel();
        reader.end(new GrpcCallError(GrpcStatus.DEADLINE_EXCEEDED, `Deadline exceeded after ${timeoutMs} ms`));
      }, timeoutMs);
      this.start(
        reader,
        () => done,
        (conn) => {
          stream = conn.request(this.headers(path, deadline - Date.now()), GrpcChannel.frame(request), reader);
          reader.cancelStream = () => stream?.cancel();
        },
      );
    });
  }

  /** A server-streaming call, without a deadline: it lives until the server ends it or cancel(). */
  serverStream(path: string, request: Uint8Array): GrpcServerStream {
    const queue: Buffer[] = [];
    let end: { err: GrpcCallError | undefined } | undefined;
    let wake: (() => void) | undefined;
    let stream: H2Stream | undefined;
    const reader = new ResponseReader(
      this.maxReceive,
      (m) => {
        queue.push(m);
        wake?.();
      },
      (err) => {
        end = { err };
        wake?.();
      },
    );
    this.start(
      reader,
      () => end !== undefined,
      (conn) => {
        stream = conn.request(this.headers(path, undefined), GrpcChannel.frame(request), reader);
        reader.cancelStream = () => stream?.cancel();
      },
    );
    return {
      cancel() {
        stream?.cancel();
        reader.end(new GrpcCallError(GrpcStatus.CANCELLED, "Cancelled on client"));
      },
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const m = queue.shift();
          if (m) {
            yield m;
            continue;
          }
          if (end) {
            if (end.err) throw end.err;
            return;
          }
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
        }
      },
    };
  }

  /** Closes every connection; calls in flight fail with UNAVAILABLE, later ones at once. */
  close(): void {
    this.closed = true;
    for (const c of [...this.live]) c.close("the channel was closed");
    this.live.clear();
    this.conn = undefined;
  }
}
