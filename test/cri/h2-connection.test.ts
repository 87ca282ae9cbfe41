// H2Connection frame by frame, over a socket the test plays: what the peer's SETTINGS, PING, GOAWAY
// and WINDOW_UPDATE frames make it do, and how it ends streams when it cannot go on.
import { expect, test } from "bun:test";
import { CONNECTION_LOST, H2Connection, RECEIVE_WINDOW, type H2StreamHandler } from "../../src/cri/h2-connection";
import { H2Error } from "../../src/cri/h2-frames";
import { encodeHeaders } from "../../src/cri/hpack";

interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/** The socket: records what the connection writes, and takes `accept` bytes of each write. */
class FakeSocket {
  written: Buffer[] = [];
  accept = Number.POSITIVE_INFINITY;
  ended = false;
  write(data: Uint8Array): number {
    const n = Math.min(data.length, this.accept);
    this.written.push(Buffer.from(data.subarray(0, n)));
    return n;
  }
  end(): void {
    this.ended = true;
  }
  /** Every frame written so far (after the preface), and forgets them. */
  frames(): Frame[] {
    let all = Buffer.concat(this.written.splice(0));
    if (all.subarray(0, PREFACE.length).toString("latin1") === PREFACE) all = all.subarray(PREFACE.length);
    const out: Frame[] = [];
    for (let p = 0; p + 9 <= all.length; ) {
      const len = all.readUIntBE(p, 3);
      out.push({ type: all[p + 3]!, flags: all[p + 4]!, stream: all.readUInt32BE(p + 5), payload: all.subarray(p + 9, p + 9 + len) });
      p += 9 + len;
    }
    return out;
  }
}

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const setting = (id: number, value: number) => Buffer.concat([Buffer.from([0, id]), u32(value)]);

function recorder(): H2StreamHandler & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    onHeaders: (f, end) => log.push(`headers ${f.map(([n, v]) => `${n}=${v}`).join(" ")}${end ? " end" : ""}`),
    onData: (d, end) => log.push(`data ${Buffer.from(d).toString()}${end ? " end" : ""}`),
    onReset: (code, reason) => log.push(`reset ${code} ${reason}`),
  };
}

function setup() {
  const socket = new FakeSocket();
  const conn = H2Connection.over(socket);
  const closed: string[] = [];
  conn.onClose = (r) => closed.push(r);
  return { socket, conn, closed };
}

test("opens with the preface, SETTINGS (push off, a 16 MiB window) and a connection WINDOW_UPDATE", () => {
  const { socket } = setup();
  expect(Buffer.concat(socket.written).subarray(0, PREFACE.length).toString("latin1")).toBe(PREFACE);
  const [settings, update] = socket.frames();
  expect(settings!.type).toBe(0x4);
  const values = new Map<number, number>();
  for (let i = 0; i < settings!.payload.length; i += 6) values.set(settings!.payload.readUInt16BE(i), settings!.payload.readUInt32BE(i + 2));
  expect(values.get(0x2)).toBe(0);
  expect(values.get(0x4)).toBe(RECEIVE_WINDOW);
  expect(update!.type).toBe(0x8);
  expect(update!.payload.readUInt32BE(0)).toBe(RECEIVE_WINDOW - 65_535);
});

test("a request, the answer in pieces split anywhere, the peer's SETTINGS acknowledged and PING answered", () => {
  const { socket, conn } = setup();
  socket.frames();
  const h = recorder();
  const stream = conn.request(
    [
      [":method", "POST"],
      [":path", "/x"],
    ],
    Buffer.from("hello"),
    h,
  );
  expect(stream.id).toBe(1);
  const [headers, data] = socket.frames();
  expect(headers).toMatchObject({ type: 0x1, flags: 0x4, stream: 1 });
  expect(data).toMatchObject({ type: 0x0, flags: 0x1, stream: 1 });
  expect(data!.payload.toString()).toBe("hello");
  const answer = Buffer.concat([
    frame(0x4, 0, 0, setting(0x3, 100)),
    frame(0x6, 0, 0, Buffer.from("12345678")),
    frame(0x1, 0x4, 1, Buffer.from(encodeHeaders([[":status", "200"]]))),
    frame(0x0, 0, 1, Buffer.from("wor")),
    frame(0x0, 0x8, 1, Buffer.concat([Buffer.from([2]), Buffer.from("ld"), Buffer.alloc(2)])), // PADDED
    frame(0x1, 0x5, 1, Buffer.from(encodeHeaders([["grpc-status", "0"]]))),
  ]);
  // Fed byte by byte: frames cut anywhere are put back together.
  for (const b of answer) (conn as unknown as { receive(d: Uint8Array): void }).receive(Buffer.from([b]));
  expect(h.log).toEqual(["headers :status=200", "data wor", "data ld", "headers grpc-status=0 end"]);
  const replies = socket.frames();
  expect(replies.find((f) => f.type === 0x4)).toMatchObject({ flags: 0x1, stream: 0 }); // SETTINGS ACK
  expect(replies.find((f) => f.type === 0x6)).toMatchObject({ flags: 0x1 });
  expect(replies.find((f) => f.type === 0x6)!.payload.toString()).toBe("12345678");
  expect(conn.activeStreams).toBe(0);
});

test("a body beyond the peer's window waits for its WINDOW_UPDATE, and goes out in frames of the peer's size", () => {
  const { socket, conn } = setup();
  const receive = (d: Buffer) => (conn as unknown as { receive(d: Uint8Array): void }).receive(d);
  receive(frame(0x4, 0, 0, setting(0x4, 20_000)));
  socket.frames();
  const body = Buffer.alloc(100_000, 1);
  conn.request([[":path", "/big"]], body, recorder());
  const sent = () =>
    socket
      .frames()
      .filter((f) => f.type === 0x0)
      .reduce((n, f) => n + f.payload.length, 0);
  expect(sent()).toBe(20_000); // the stream's window
  receive(frame(0x8, 0, 1, u32(100_000)));
  expect(sent()).toBe(65_535 - 20_000); // now the connection's window (65,535 in all) is the limit
  receive(frame(0x8, 0, 0, u32(100_000)));
  const rest = socket.frames().filter((f) => f.type === 0x0);
  expect(rest.reduce((n, f) => n + f.payload.length, 0)).toBe(100_000 - 65_535);
  expect(rest.at(-1)!.flags & 0x1).toBe(1);
  expect(rest.every((f) => f.payload.length <= 16_384)).toBe(true);
});

test("GOAWAY: streams above the last id fail as refused, the others finish, no new stream starts", () => {
  const { socket, conn, closed } = setup();
  const receive = (d: Buffer) => (conn as unknown as { receive(d: Uint8Array): void }).receive(d);
  const a = recorder();
  const b = recorder();
  conn.request([[":path", "/a"]], Buffer.from("1"), a);
  conn.request([[":path", "/b"]], Buffer.from("2"), b);
  socket.frames();
  receive(frame(0x7, 0, 0, Buffer.concat([u32(1), u32(H2Error.NO_ERROR)])));
  expect(b.log).toEqual([expect.stringMatching(new RegExp(`^reset ${H2Error.REFUSED_STREAM} .*GOAWAY`))]);
  expect(conn.usable).toBe(false);
  expect(() => conn.request([[":path", "/c"]], Buffer.alloc(0), recorder())).toThrow(/no new streams/);
  receive(
    frame(
      0x1,
      0x5,
      1,
      Buffer.from(
        encodeHeaders([
          [":status", "200"],
          ["grpc-status", "0"],
        ]),
      ),
    ),
  );
  expect(a.log).toEqual(["headers :status=200 grpc-status=0 end"]);
  // The last stream done, the connection closes itself.
  expect(closed).toHaveLength(1);
  expect(socket.ended).toBe(true);
});

test("the last stream id: the connection then takes no new stream, and closes once its streams are done", () => {
  const { conn, closed } = setup();
  (conn as unknown as { nextStreamId: number }).nextStreamId = 0x7fffffff;
  const h = recorder();
  expect(conn.request([[":path", "/last"]], Buffer.from("x"), h).id).toBe(0x7fffffff);
  expect(conn.usable).toBe(false);
  expect(closed).toEqual([]);
  (conn as unknown as { receive(d: Uint8Array): void }).receive(
    frame(
      0x1,
      0x5,
      0x7fffffff,
      Buffer.from(
        encodeHeaders([
          [":status", "200"],
          ["grpc-status", "0"],
        ]),
      ),
    ),
  );
  expect(closed).toHaveLength(1);
});

test("a protocol error or a lost socket ends every stream with CONNECTION_LOST; a socket that throws too", () => {
  const { socket, conn, closed } = setup();
  const h = recorder();
  conn.request([[":path", "/a"]], Buffer.from("1"), h);
  // A CONTINUATION no HEADERS began: a protocol error, answered with GOAWAY.
  socket.frames();
  (conn as unknown as { receive(d: Uint8Array): void }).receive(frame(0x9, 0x4, 1, Buffer.alloc(0)));
  expect(h.log).toEqual([expect.stringMatching(new RegExp(`^reset ${CONNECTION_LOST} HTTP/2 protocol error`))]);
  expect(socket.frames().map((f) => f.type)).toEqual([0x7]);
  expect(closed).toHaveLength(1);

  const broken = new FakeSocket();
  const conn2 = H2Connection.over(broken);
  const h2 = recorder();
  broken.write = () => {
    throw new Error("socket closed");
  };
  conn2.request([[":path", "/b"]], Buffer.from("2"), h2);
  expect(h2.log).toEqual([expect.stringMatching(new RegExp(`^reset ${CONNECTION_LOST} writing to the runtime failed: socket closed`))]);
  expect(conn2.usable).toBe(false);
});

test("a socket that takes only part of a write gets the rest, in order, when it drains", () => {
  const { socket, conn } = setup();
  socket.frames();
  socket.accept = 10;
  conn.request([[":path", "/slow"]], Buffer.from("payload"), recorder());
  socket.accept = Number.POSITIVE_INFINITY;
  (conn as unknown as { flush(): void }).flush();
  const frames = socket.frames();
  expect(frames.map((f) => f.type)).toEqual([0x1, 0x0]);
  expect(frames[1]!.payload.toString()).toBe("payload");
});
