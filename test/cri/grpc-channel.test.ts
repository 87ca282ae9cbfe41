// GrpcChannel and H2Connection against an independent HTTP/2 server (Bun's node:http2) on a unix
// socket, playing a gRPC service: framing, statuses, flow control both ways, deadlines, streams,
// and the connection's loss and return.
import { afterAll, afterEach, expect, test } from "bun:test";
import * as http2 from "node:http2";
import * as net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GrpcCallError, GrpcChannel } from "../../src/cri/grpc-channel";
import { GrpcStatus } from "../../src/cri/grpc-status";
import { eventually } from "../e2e/proc";

const dir = mkdtempSync(join(tmpdir(), "na-grpc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Handler = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, body: Buffer) => void;

/** A gRPC message frame: not compressed, the length, the bytes. */
const frame = (m: Buffer) => Buffer.concat([Buffer.from([0]), u32(m.length), m]);
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
/** The messages of a gRPC request body. */
function messages(body: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p + 5 <= body.length; ) {
    const n = body.readUInt32BE(p + 1);
    out.push(body.subarray(p + 5, p + 5 + n));
    p += 5 + n;
  }
  return out;
}
function ok(stream: http2.ServerHttp2Stream, ...replies: Buffer[]): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  stream.end(Buffer.concat(replies.map(frame)));
}

interface FakeServer {
  path: string;
  server: http2.Http2Server;
  sessions: Set<http2.ServerHttp2Session>;
  seen: http2.IncomingHttpHeaders[];
  close(): Promise<void>;
}
const servers: FakeServer[] = [];
const channels: GrpcChannel[] = [];
afterEach(async () => {
  for (const c of channels.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

let seq = 0;
async function serve(handlers: Record<string, Handler>, path = join(dir, `s${++seq}.sock`)): Promise<FakeServer> {
  rmSync(path, { force: true });
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  const seen: http2.IncomingHttpHeaders[] = [];
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("stream", (s, headers) => {
    const stream = s as http2.ServerHttp2Stream;
    seen.push(headers);
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const h = handlers[headers[":path"] as string];
      if (h) h(stream, headers, Buffer.concat(chunks));
      else {
        stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "12", "grpc-message": "unknown method" }, { endStream: true });
      }
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  const s: FakeServer = {
    path,
    server,
    sessions,
    seen,
    close: () =>
      new Promise<void>((r) => {
        for (const session of sessions) session.destroy();
        server.close(() => r());
      }),
  };
  servers.push(s);
  return s;
}
function channel(path: string, opts: ConstructorParameters<typeof GrpcChannel>[1] = {}): GrpcChannel {
  const c = new GrpcChannel(path, opts);
  channels.push(c);
  return c;
}
async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GrpcCallError) return e.code;
    throw e;
  }
  throw new Error("the call succeeded");
}

test("a unary call: the request as gRPC frames it, the answer, and the headers a gRPC server expects", async () => {
  const s = await serve({ "/svc/Echo": (stream, _h, body) => ok(stream, Buffer.from(`echo:${messages(body)[0]!.toString()}`)) });
  const c = channel(s.path);
  expect((await c.unary("/svc/Echo", Buffer.from("hi"), 5000)).toString()).toBe("echo:hi");
  const h = s.seen[0]!;
  expect(h[":method"]).toBe("POST");
  expect(h["content-type"]).toBe("application/grpc");
  expect(h.te).toBe("trailers");
  expect(h["grpc-timeout"]).toMatch(/^\d+m$/);
  expect(Number(String(h["grpc-timeout"]).slice(0, -1))).toBeLessThanOrEqual(5000);
});

test("statuses: trailers-only errors with a percent-encoded message, a non-200 answer, an empty unary answer", async () => {
  const s = await serve({
    "/svc/Missing": (stream) =>
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "container%20abc%3A%20not%20found" },
        { endStream: true },
      ),
    "/svc/Http": (stream) => stream.respond({ ":status": 503 }, { endStream: true }),
    "/svc/Empty": (stream) => ok(stream),
  });
  const c = channel(s.path);
  const err = await c.unary("/svc/Missing", Buffer.alloc(0), 5000).catch((e: GrpcCallError) => e);
  expect(err).toBeInstanceOf(GrpcCallError);
  expect((err as GrpcCallError).code).toBe(GrpcStatus.NOT_FOUND);
  expect((err as GrpcCallError).details).toBe("container abc: not found");
  expect(await code(c.unary("/svc/Http", Buffer.alloc(0), 5000))).toBe(GrpcStatus.UNAVAILABLE);
  expect(await code(c.unary("/svc/Empty", Buffer.alloc(0), 5000))).toBe(GrpcStatus.INTERNAL);
  expect(await code(c.unary("/svc/Nope", Buffer.alloc(0), 5000))).toBe(GrpcStatus.UNIMPLEMENTED);
});

test("flow control both ways: a 3 MiB request and a 5 MiB answer, and 200 calls at once on one connection", async () => {
  const s = await serve({
    "/svc/Size": (stream, _h, body) => ok(stream, Buffer.from(String(messages(body)[0]!.length))),
    "/svc/Big": (stream) => ok(stream, Buffer.alloc(5 * 1024 * 1024, 7)),
    "/svc/Echo": (stream, _h, body) => ok(stream, messages(body)[0]!),
  });
  const c = channel(s.path, { maxReceiveMessageBytes: 16 * 1024 * 1024 });
  expect((await c.unary("/svc/Size", Buffer.alloc(3 * 1024 * 1024, 1), 10_000)).toString()).toBe(String(3 * 1024 * 1024));
  const big = await c.unary("/svc/Big", Buffer.alloc(0), 10_000);
  expect(big.length).toBe(5 * 1024 * 1024);
  expect(big.every((b) => b === 7)).toBe(true);
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => c.unary("/svc/Echo", Buffer.from(`m${i}`), 10_000)));
  expect(answers.map(String)).toEqual(Array.from({ length: 200 }, (_, i) => `m${i}`));
  expect(s.sessions.size).toBe(1);
}, 30_000);

test("a message above the limit fails the call with RESOURCE_EXHAUSTED; the connection serves the next call", async () => {
  const s = await serve({ "/svc/Big": (stream) => ok(stream, Buffer.alloc(2048)), "/svc/Small": (stream) => ok(stream, Buffer.from("s")) });
  const c = channel(s.path, { maxReceiveMessageBytes: 1024 });
  expect(await code(c.unary("/svc/Big", Buffer.alloc(0), 5000))).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
  expect((await c.unary("/svc/Small", Buffer.alloc(0), 5000)).toString()).toBe("s");
});

test("a deadline cancels the stream and fails the call with DEADLINE_EXCEEDED", async () => {
  let reset = false;
  const s = await serve({ "/svc/Hang": (stream) => stream.on("close", () => (reset = stream.rstCode === http2.constants.NGHTTP2_CANCEL)) });
  const c = channel(s.path);
  const t0 = Date.now();
  expect(await code(c.unary("/svc/Hang", Buffer.alloc(0), 200))).toBe(GrpcStatus.DEADLINE_EXCEEDED);
  expect(Date.now() - t0).toBeLessThan(5000);
  await eventually("the server sees the stream reset with CANCEL", async () => reset, 5000, 10);
});

test("a server stream: messages as they come, then cancel() ends it with CANCELLED and resets the stream", async () => {
  let serverStream: http2.ServerHttp2Stream | undefined;
  const s = await serve({
    "/svc/Watch": (stream) => {
      serverStream = stream;
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      for (const m of ["a", "b", "c"]) stream.write(frame(Buffer.from(m)));
    },
  });
  const c = channel(s.path);
  const stream = c.serverStream("/svc/Watch", Buffer.alloc(0));
  const got: string[] = [];
  let ended: unknown;
  try {
    for await (const m of stream) {
      got.push(m.toString());
      if (got.length === 3) stream.cancel();
    }
  } catch (e) {
    ended = e;
  }
  expect(got).toEqual(["a", "b", "c"]);
  expect((ended as GrpcCallError).code).toBe(GrpcStatus.CANCELLED);
  await eventually("the server's stream closed", async () => serverStream?.closed, 5000, 10);
  expect(serverStream?.rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
});

test("the runtime going away fails calls in flight with UNAVAILABLE; the next call after its return connects again", async () => {
  // The client reaches the server through a unix socket proxy, whose connections the test can drop
  // as a runtime that exits drops them.
  const s = await serve({ "/svc/Hang": () => {}, "/svc/Ping": (stream) => ok(stream, Buffer.from("pong")) });
  const path = join(dir, "proxy.sock");
  const links = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    const up = net.connect(s.path);
    links.add(client);
    client.pipe(up).pipe(client);
    client.on("close", () => up.destroy());
    up.on("close", () => client.destroy());
  });
  const listen = () => new Promise<void>((r) => proxy.listen(path, r));
  await listen();
  const c = channel(path, { minReconnectBackoffMs: 50, maxReconnectBackoffMs: 50 });
  expect((await c.unary("/svc/Ping", Buffer.alloc(0), 5000)).toString()).toBe("pong");
  const hanging = c.unary("/svc/Hang", Buffer.alloc(0), 10_000);
  await eventually("the server has the call", async () => s.seen.some((h) => h[":path"] === "/svc/Hang"), 5000, 10);
  for (const l of links) l.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
  expect(await code(hanging)).toBe(GrpcStatus.UNAVAILABLE);
  // Gone: UNAVAILABLE at once, not at the deadline.
  const t0 = Date.now();
  expect(await code(c.unary("/svc/Ping", Buffer.alloc(0), 10_000))).toBe(GrpcStatus.UNAVAILABLE);
  expect(Date.now() - t0).toBeLessThan(2000);
  await listen();
  try {
    // Calls within the backoff fail at once; one after it connects.
    expect(await eventually("a call after the runtime's return", () => c.unary("/svc/Ping", Buffer.alloc(0), 5000).then(String, () => ""), 5000, 20)).toBe(
      "pong",
    );
  } finally {
    links.forEach((l) => l.destroy());
    proxy.close();
  }
});
