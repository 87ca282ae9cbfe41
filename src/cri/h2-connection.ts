// H2Connection: the client side of one HTTP/2 connection (RFC 9113) over a unix socket, "prior
// knowledge" cleartext as gRPC uses it to reach a container runtime. It is the transport of the CRI
// client (grpc-channel.ts) in place of @grpc/grpc-js, which with node:http2, protobufjs and its
// loaders cost the agent ~40 MiB of its idle RSS; this speaks only what a gRPC client needs:
//
//  - streams are opened by request() (HEADERS, then the body in DATA frames ending the stream) and
//    end when the peer ends them, resets them, or the caller cancels (RST_STREAM CANCEL);
//  - flow control: the peer may send up to RECEIVE_WINDOW on each stream and on the connection, and
//    what arrives is credited back (WINDOW_UPDATE) once half of a window has been received: the
//    stream's owner takes every frame as it comes, so nothing waits on a reader. Sending obeys the
//    peer's windows and frame size: a body that does not fit waits for its WINDOW_UPDATE;
//  - SETTINGS are acknowledged and applied, PING answered, server push refused (ENABLE_PUSH 0);
//  - GOAWAY: streams above the peer's last stream id fail as refused (safe to retry), the others
//    finish, and no new stream starts here. Stream ids run out after 2^31: the connection then also
//    stops taking streams, and the channel opens another, as after a GOAWAY.
// Any protocol error from the peer ends the connection and every stream on it (onClose).
import {
  ACK,
  ConnectionError,
  END_HEADERS,
  END_STREAM,
  Frame,
  H2Error,
  PADDED,
  PREFACE,
  PRIORITY_FLAG,
  Setting,
  settingsPayload,
  u32,
  unpad,
} from "./h2-frames";
import { encodeHeaders, HEADER_TABLE_SIZE, HpackDecoder, HpackError, type HeaderField } from "./hpack";

/** The code onReset gets when the connection itself ended (closed, lost, or a protocol error). */
export const CONNECTION_LOST = -1;

/** What the receiving side of a stream hears; each is called on the connection's reading turn. */
export interface H2StreamHandler {
  /** A header block: the response headers, or the trailers when `endStream`. */
  onHeaders(fields: HeaderField[], endStream: boolean): void;
  onData(data: Uint8Array, endStream: boolean): void;
  /**
   * The stream ended without the peer ending it: a RST_STREAM (its code), the peer's GOAWAY above
   * this stream (REFUSED_STREAM: it never ran), or CONNECTION_LOST (`reason` says how).
   */
  onReset(code: number, reason: string): void;
}

/** A started stream: the caller may cancel it (RST_STREAM CANCEL); no handler call follows. */
export interface H2Stream {
  readonly id: number;
  cancel(): void;
}

/** The peer may send this much per stream, and on the connection, before it is credited back. */
export const RECEIVE_WINDOW = 16 * 1024 * 1024;
/** The highest stream id a client may use (2^31 - 1, odd). */
const MAX_STREAM_ID = 0x7fffffff;
/** The default SETTINGS_INITIAL_WINDOW_SIZE and connection window before any update. */
const DEFAULT_WINDOW = 65_535;

interface StreamState {
  id: number;
  handler: H2StreamHandler;
  /** What the peer lets this side send on the stream. */
  sendWindow: number;
  /** The body not yet sent, and whether it ends the stream. */
  pending: Uint8Array | undefined;
  /** Received on this stream since it was last credited. */
  unacked: number;
  /** This side has sent END_STREAM. */
  localEnded: boolean;
}

/** The socket the connection writes to (a Bun socket; a fake in tests). */
export interface H2Socket {
  write(data: Uint8Array): number;
  end(): void;
}

export class H2Connection {
  private readonly decoder = new HpackDecoder();
  private readonly streams = new Map<number, StreamState>();
  private nextStreamId = 1;
  private closed = false;
  private goawayLastId: number | undefined;
  /** The peer's settings as last received. */
  private peerMaxFrameSize = 16_384;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxStreams = Number.POSITIVE_INFINITY;
  private connSendWindow = DEFAULT_WINDOW;
  private connUnacked = 0;
  /** Bytes received not yet forming a whole frame. */
  private inbuf: Buffer = Buffer.alloc(0);
  /** Bytes the socket did not take yet (it said so); flushed on drain. */
  private outbuf: Uint8Array[] = [];
  /** A header block being continued (CONTINUATION frames until END_HEADERS). */
  private continuing: { streamId: number; endStream: boolean; chunks: Uint8Array[] } | undefined;
  /** Streams waiting for a slot under the peer's MAX_CONCURRENT_STREAMS. */
  private waiting: Array<() => void> = [];
  /** Called once when the connection ends, for whatever reason. */
  onClose: (reason: string) => void = () => {};

  private constructor(private readonly socket: H2Socket) {}

  /**
   * Opens a connection to the unix socket at `path`: resolves once connected (the preface and
   * SETTINGS are on their way; requests may follow at once), rejects when the socket cannot be
   * reached (missing, refused).
   */
  static async connect(path: string): Promise<H2Connection> {
    let conn: H2Connection | undefined;
    // What the socket says before the connection object exists is replayed to it.
    const early: Buffer[] = [];
    let endedEarly: string | undefined;
    const end = (reason: string): void => {
      if (conn) conn.shutdown(reason);
      else endedEarly ??= reason;
    };
    const socket = await Bun.connect({
      unix: path,
      socket: {
        data: (_s, data) => {
          if (conn) conn.receive(data);
          else early.push(Buffer.from(data));
        },
        drain: () => conn?.flush(),
        close: () => end("the runtime closed the connection"),
        error: (_s, err) => end(`connection error: ${err.message}`),
      },
    });
    conn = new H2Connection(socket);
    conn.start();
    for (const d of early) conn.receive(d);
    if (endedEarly) conn.shutdown(endedEarly);
    return conn;
  }

  /** A connection over any socket (tests play the peer); what the socket receives goes to receive(). */
  static over(socket: H2Socket): H2Connection {
    const conn = new H2Connection(socket);
    conn.start();
    return conn;
  }

  private start(): void {
    this.write(PREFACE);
    this.writeFrame(
      Frame.SETTINGS,
      0,
      0,
      settingsPayload([
        [Setting.HEADER_TABLE_SIZE, HEADER_TABLE_SIZE],
        [Setting.ENABLE_PUSH, 0],
        [Setting.INITIAL_WINDOW_SIZE, RECEIVE_WINDOW],
      ]),
    );
    // The connection window can only grow by WINDOW_UPDATE.
    this.writeFrame(Frame.WINDOW_UPDATE, 0, 0, u32(RECEIVE_WINDOW - DEFAULT_WINDOW));
  }

  /** True while new streams may start here: open, no GOAWAY, stream ids left. */
  get usable(): boolean {
    return !this.closed && this.goawayLastId === undefined && this.nextStreamId <= MAX_STREAM_ID;
  }

  /** Streams open on this connection. */
  get activeStreams(): number {
    return this.streams.size;
  }

  /**
   * Starts a stream: the header block, then `body` (which ends the stream). Throws when the
   * connection takes no new streams (check `usable`). Under the peer's MAX_CONCURRENT_STREAMS the
   * stream waits for a slot before its frames go out; it can be cancelled meanwhile.
   */
  request(headers: readonly HeaderField[], body: Uint8Array, handler: H2StreamHandler): H2Stream {
    if (!this.usable) throw new Error("the HTTP/2 connection takes no new streams");
    let state: StreamState | undefined;
    let cancelled = false;
    const open = () => {
      if (cancelled) return;
      if (!this.usable) {
        handler.onReset(H2Error.REFUSED_STREAM, "the connection closed before the stream started");
        return;
      }
      const id = this.nextStreamId;
      this.nextStreamId += 2;
      state = { id, handler, sendWindow: this.peerInitialWindow, pending: body, unacked: 0, localEnded: false };
      this.streams.set(id, state);
      this.writeHeaders(id, encodeHeaders(headers), body.length === 0);
      if (body.length === 0) {
        state.pending = undefined;
        state.localEnded = true;
      } else {
        this.sendPending(state);
      }
    };
    if (this.streams.size < this.peerMaxStreams) open();
    else this.waiting.push(open);
    const conn = this;
    return {
      get id() {
        return state?.id ?? 0;
      },
      cancel() {
        cancelled = true;
        if (!state || !conn.streams.has(state.id)) return;
        conn.streams.delete(state.id);
        if (!conn.closed) conn.writeFrame(Frame.RST_STREAM, 0, state.id, u32(H2Error.CANCEL));
        conn.streamEnded();
      },
    };
  }

  /** Ends the connection: every open stream is reset with `reason`. */
  close(reason = "the client closed the connection"): void {
    if (this.closed) return;
    if (this.streams.size === 0) this.writeFrame(Frame.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(H2Error.NO_ERROR)]));
    this.shutdown(reason);
  }

  // ---- writing

  private write(data: Uint8Array): void {
    if (this.closed) return;
    if (this.outbuf.length > 0) {
      this.outbuf.push(data);
      return;
    }
    const n = this.socketWrite(data);
    if (n < data.length && !this.closed) this.outbuf.push(data.subarray(Math.max(0, n)));
  }

  /** The socket can take more: what it refused before goes now. */
  private flush(): void {
    while (this.outbuf.length > 0 && !this.closed) {
      const head = this.outbuf[0]!;
      const n = this.socketWrite(head);
      if (n < head.length) {
        if (!this.closed) this.outbuf[0] = head.subarray(Math.max(0, n));
        return;
      }
      this.outbuf.shift();
    }
  }

  /**
   * One write to the socket. A socket that throws (closed under us) ends the connection here: a
   * throw must not escape into the socket's callbacks or a caller's promise chain.
   */
  private socketWrite(data: Uint8Array): number {
    try {
      return this.socket.write(data);
    } catch (err) {
      this.shutdown(`writing to the runtime failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    }
  }

  private writeFrame(type: number, flags: number, streamId: number, payload: Uint8Array): void {
    const frame = Buffer.allocUnsafe(9 + payload.length);
    frame.writeUIntBE(payload.length, 0, 3);
    frame[3] = type;
    frame[4] = flags;
    frame.writeUInt32BE(streamId, 5);
    frame.set(payload, 9);
    this.write(frame);
  }

  private writeHeaders(streamId: number, block: Uint8Array, endStream: boolean): void {
    const max = this.peerMaxFrameSize;
    const end = endStream ? END_STREAM : 0;
    if (block.length <= max) {
      this.writeFrame(Frame.HEADERS, END_HEADERS | end, streamId, block);
      return;
    }
    this.writeFrame(Frame.HEADERS, end, streamId, block.subarray(0, max));
    for (let off = max; off < block.length; off += max) {
      this.writeFrame(Frame.CONTINUATION, off + max >= block.length ? END_HEADERS : 0, streamId, block.subarray(off, off + max));
    }
  }

  /** Sends as much of the stream's body as the windows and the frame size allow. */
  private sendPending(s: StreamState): void {
    while (s.pending && !this.closed) {
      const n = Math.min(s.pending.length, s.sendWindow, this.connSendWindow, this.peerMaxFrameSize);
      if (n <= 0) return; // wait for a WINDOW_UPDATE
      const last = n === s.pending.length;
      this.writeFrame(Frame.DATA, last ? END_STREAM : 0, s.id, s.pending.subarray(0, n));
      s.sendWindow -= n;
      this.connSendWindow -= n;
      s.pending = last ? undefined : s.pending.subarray(n);
      if (last) s.localEnded = true;
    }
  }

  // ---- reading

  private receive(data: Uint8Array): void {
    if (this.closed) return;
    this.inbuf = this.inbuf.length === 0 ? Buffer.from(data) : Buffer.concat([this.inbuf, data]);
    try {
      let pos = 0;
      while (this.inbuf.length - pos >= 9) {
        const length = this.inbuf.readUIntBE(pos, 3);
        // This side never raises SETTINGS_MAX_FRAME_SIZE above its default.
        if (length > 16_384) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, `frame of ${length} bytes`);
        if (this.inbuf.length - pos < 9 + length) break;
        const type = this.inbuf[pos + 3]!;
        const flags = this.inbuf[pos + 4]!;
        const streamId = this.inbuf.readUInt32BE(pos + 5) & MAX_STREAM_ID;
        const payload = this.inbuf.subarray(pos + 9, pos + 9 + length);
        pos += 9 + length;
        this.onFrame(type, flags, streamId, payload);
        if (this.closed) return;
      }
      this.inbuf = pos === this.inbuf.length ? Buffer.alloc(0) : Buffer.from(this.inbuf.subarray(pos));
    } catch (err) {
      // A protocol error from the peer (or a bug here): the connection cannot be trusted any more.
      const e =
        err instanceof ConnectionError
          ? err
          : err instanceof HpackError
            ? new ConnectionError(H2Error.COMPRESSION_ERROR, err.message)
            : new ConnectionError(H2Error.INTERNAL_ERROR, String(err));
      this.writeFrame(Frame.GOAWAY, 0, 0, Buffer.concat([u32(0), u32(e.code)]));
      this.shutdown(`HTTP/2 protocol error: ${e.message}`);
    }
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.continuing && type !== Frame.CONTINUATION) throw new ConnectionError(H2Error.PROTOCOL_ERROR, "header block interrupted");
    switch (type) {
      case Frame.DATA:
        return this.onDataFrame(flags, streamId, payload);
      case Frame.HEADERS: {
        let block = payload;
        if (flags & PADDED) block = unpad(block);
        if (flags & PRIORITY_FLAG) block = block.subarray(5);
        const endStream = (flags & END_STREAM) !== 0;
        if (flags & END_HEADERS) this.onHeaderBlock(streamId, block, endStream);
        else this.continuing = { streamId, endStream, chunks: [Buffer.from(block)] };
        return;
      }
      case Frame.CONTINUATION: {
        const c = this.continuing;
        if (!c || c.streamId !== streamId) throw new ConnectionError(H2Error.PROTOCOL_ERROR, "unexpected CONTINUATION");
        c.chunks.push(Buffer.from(payload));
        if (flags & END_HEADERS) {
          this.continuing = undefined;
          this.onHeaderBlock(streamId, Buffer.concat(c.chunks), c.endStream);
        }
        return;
      }
      case Frame.RST_STREAM: {
        const s = this.streams.get(streamId);
        if (!s) return;
        this.streams.delete(streamId);
        this.streamEnded();
        s.handler.onReset(payload.readUInt32BE(0), "the runtime reset the stream");
        return;
      }
      case Frame.SETTINGS:
        if (flags & ACK) return;
        this.applySettings(payload);
        this.writeFrame(Frame.SETTINGS, ACK, 0, new Uint8Array(0));
        return;
      case Frame.PING:
        if (!(flags & ACK)) this.writeFrame(Frame.PING, ACK, 0, payload);
        return;
      case Frame.GOAWAY:
        return this.onGoaway(payload.readUInt32BE(0) & MAX_STREAM_ID, payload.readUInt32BE(4));
      case Frame.WINDOW_UPDATE: {
        const increment = payload.readUInt32BE(0) & 0x7fffffff;
        if (streamId === 0) {
          this.connSendWindow += increment;
          for (const s of this.streams.values()) this.sendPending(s);
        } else {
          const s = this.streams.get(streamId);
          if (!s) return;
          s.sendWindow += increment;
          this.sendPending(s);
        }
        return;
      }
      case Frame.PUSH_PROMISE:
        throw new ConnectionError(H2Error.PROTOCOL_ERROR, "PUSH_PROMISE with push disabled");
      default:
        // PRIORITY and unknown frame types are ignored (RFC 9113 §4.1, §5.5).
        return;
    }
  }

  private onDataFrame(flags: number, streamId: number, payload: Buffer): void {
    // Flow control counts the whole payload, padding included.
    this.connUnacked += payload.length;
    if (this.connUnacked >= RECEIVE_WINDOW / 2) {
      this.writeFrame(Frame.WINDOW_UPDATE, 0, 0, u32(this.connUnacked));
      this.connUnacked = 0;
    }
    const s = this.streams.get(streamId);
    if (!s) return; // a stream this side already cancelled
    const data = flags & PADDED ? unpad(payload) : payload;
    const endStream = (flags & END_STREAM) !== 0;
    if (endStream) {
      this.streams.delete(streamId);
      this.streamEnded();
    } else {
      s.unacked += payload.length;
      if (s.unacked >= RECEIVE_WINDOW / 2) {
        this.writeFrame(Frame.WINDOW_UPDATE, 0, streamId, u32(s.unacked));
        s.unacked = 0;
      }
    }
    // The handler keeps what it needs: the payload's memory is the receive buffer's.
    s.handler.onData(data, endStream);
  }

  private onHeaderBlock(streamId: number, block: Uint8Array, endStream: boolean): void {
    // Every block is decoded, a cancelled stream's too: the decoder's table must follow the peer's.
    const fields = this.decoder.decode(block);
    const s = this.streams.get(streamId);
    if (!s) return;
    if (endStream) {
      this.streams.delete(streamId);
      this.streamEnded();
    }
    s.handler.onHeaders(fields, endStream);
  }

  private applySettings(payload: Buffer): void {
    if (payload.length % 6 !== 0) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, "SETTINGS length");
    for (let i = 0; i < payload.length; i += 6) {
      const id = payload.readUInt16BE(i);
      const value = payload.readUInt32BE(i + 2);
      if (id === Setting.INITIAL_WINDOW_SIZE) {
        if (value > 0x7fffffff) throw new ConnectionError(H2Error.FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE");
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const s of this.streams.values()) s.sendWindow += delta;
      } else if (id === Setting.MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215) throw new ConnectionError(H2Error.PROTOCOL_ERROR, "MAX_FRAME_SIZE");
        this.peerMaxFrameSize = value;
      } else if (id === Setting.MAX_CONCURRENT_STREAMS) {
        this.peerMaxStreams = value;
      }
      // HEADER_TABLE_SIZE concerns an encoder's dynamic table, and this encoder keeps none.
    }
    for (const s of this.streams.values()) this.sendPending(s);
    this.streamEnded();
  }

  private onGoaway(lastStreamId: number, code: number): void {
    this.goawayLastId = lastStreamId;
    // Streams the peer never saw fail as refused; the caller may retry them on a new connection.
    for (const [id, s] of this.streams) {
      if (id > lastStreamId) {
        this.streams.delete(id);
        s.handler.onReset(H2Error.REFUSED_STREAM, `the runtime is closing the connection (GOAWAY, code ${code})`);
      }
    }
    for (const open of this.waiting.splice(0)) open();
    if (this.streams.size === 0) this.shutdown(`the runtime closed the connection (GOAWAY, code ${code})`);
  }

  /** A stream ended: a waiting one may start; a connection that takes no more streams closes once idle. */
  private streamEnded(): void {
    while (this.waiting.length > 0 && this.streams.size < this.peerMaxStreams) this.waiting.shift()!();
    if (!this.usable && this.streams.size === 0 && this.waiting.length === 0 && !this.closed) this.shutdown("the connection has no stream ids left");
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.outbuf = [];
    try {
      this.socket.end();
    } catch {
      /* already gone */
    }
    const streams = [...this.streams.values()];
    this.streams.clear();
    const waiting = this.waiting.splice(0);
    for (const s of streams) s.handler.onReset(CONNECTION_LOST, reason);
    for (const open of waiting) open();
    this.onClose(reason);
  }
}
