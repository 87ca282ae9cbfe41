// The agent API's socket: node:tls (or, with --insecure-http, plain TCP) feeding node:http, and each
// request handed to a fetch-style handler (Request in, Response out) with what the connection knows of
// the caller: its address and its verified client certificate.
//
// Why not Bun.serve, which served the API before: it gives a handler no way to see the client's
// certificate (the kubelet's x509 authentication needs the verified chain's CN and O), and it upgrades
// connections only to WebSocket, while /exec, /attach and /portForward must hand the raw connection
// (SPDY/3.1 as kubectl and the API server speak it, or WebSocket) to the runtime's streaming server.
// Bun's node:https server does not expose the peer certificate either (getPeerCertificate is missing
// on its request sockets); its node:tls server does, so TLS is terminated by tls.Server and each
// secure socket is given to an http.Server as a connection, which also emits "upgrade" with the raw
// socket for the streaming endpoints.
import { X509Certificate } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Server as NetServer, Socket } from "node:net";
import { Readable, type Duplex } from "node:stream";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { errorMessage } from "../util";
import type { PeerCertificate } from "./authn";
import { answerConnect, answerMalformedRequest, answerUnsupportedVersion, type ParserError } from "./malformed-request";
import { proxyUpgrade, upgradeTargetOf } from "./streaming";

/** What the connection tells about the caller. */
export interface Connection {
  /** "ip:port" of the client, for the log. */
  remote: string;
  /** The client certificate, when one was sent (only asked for with a client CA). */
  peer?: PeerCertificate;
}

export interface ListenOptions {
  address: string;
  port: number;
  /** PEM chain, key, and the client CA bundle that client certificates are verified against. */
  tls?: { cert: string; key: string; clientCA?: string };
  handle: (req: Request, conn: Connection) => Promise<Response>;
  onError: (message: string) => void;
}

export interface Listener {
  port: number;
  /**
   * Serves another certificate from the next handshake on (a rotated serving certificate; the client
   * CA stays). Connections already open keep theirs. No-op on plain HTTP.
   */
  setCertificate(cert: string, key: string): void;
  close(): Promise<void>;
}

const peers = new WeakMap<object, PeerCertificate | null>();

/** The client certificate of a TLS socket, read once per connection. */
export function peerCertificate(socket: object): PeerCertificate | undefined {
  const known = peers.get(socket);
  if (known !== undefined) return known ?? undefined;
  const s = socket as Partial<TLSSocket>;
  let peer: PeerCertificate | null = null;
  const cert = typeof s.getPeerCertificate === "function" ? s.getPeerCertificate() : undefined;
  if (cert && Object.keys(cert).length > 0) {
    const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    let extKeyUsage: string[] | undefined = cert.ext_key_usage;
    if (extKeyUsage === undefined && cert.raw) {
      try {
        const k = new X509Certificate(cert.raw).keyUsage;
        extKeyUsage = k && k.length ? k : undefined;
      } catch {
        /* the TLS layer parsed it; leave the usage unknown */
      }
    }
    peer = {
      verified: s.authorized === true,
      ...(s.authorizationError ? { verifyError: String(s.authorizationError) } : {}),
      ...(list(cert.subject?.CN)[0] ? { commonName: list(cert.subject?.CN)[0] } : {}),
      organizations: list(cert.subject?.O),
      ...(extKeyUsage ? { extKeyUsage } : {}),
      ...(cert.fingerprint256 ? { fingerprint: cert.fingerprint256 } : {}),
    };
  }
  peers.set(socket, peer);
  return peer ?? undefined;
}

function connectionOf(socket: Socket | Duplex): Connection {
  const s = socket as Partial<Socket>;
  const remote = s.remoteAddress ? `${s.remoteAddress.includes(":") ? `[${s.remoteAddress}]` : s.remoteAddress}:${s.remotePort}` : "unknown";
  const peer = peerCertificate(socket);
  return { remote, ...(peer ? { peer } : {}) };
}

function toRequest(req: IncomingMessage, scheme: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  // The origin is fixed: routing reads the path and query only, and a Host header is the caller's word.
  const url = new URL(req.url ?? "/", `${scheme}://nodeagent`);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url.toString(), {
    method: req.method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

async function writeResponse(r: Response, res: ServerResponse, head: boolean): Promise<void> {
  res.statusCode = r.status;
  r.headers.forEach((value, name) => res.setHeader(name, value));
  if (!r.body || head) {
    res.end();
    return;
  }
  const reader = r.body.getReader();
  let closed = false;
  res.on("close", () => {
    // The client went away (a follow of the logs ends this way): stop producing.
    closed = true;
    void reader.cancel().catch(() => undefined);
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done || closed) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once("drain", resolve).once("close", resolve));
  }
  res.end();
}

/** The bare HTTP/1.1 answer to an upgrade request nobody upgrades: status, headers, body, close. */
async function writeRawResponse(r: Response, socket: Duplex): Promise<void> {
  const body = Buffer.from(await r.arrayBuffer());
  let head = `HTTP/1.1 ${r.status} ${r.statusText || "Error"}\r\n`;
  r.headers.forEach((value, name) => (head += `${name}: ${value}\r\n`));
  head += `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
}

/** Listens; resolves once bound, rejects with the reason when the address cannot be bound. */
export function listen(o: ListenOptions): Promise<Listener> {
  const scheme = o.tls ? "https" : "http";
  const sockets = new Set<Duplex>();
  const http = createHttpServer((req, res) => {
    if (answerUnsupportedVersion(req.httpVersionMajor, req.httpVersionMinor, req.socket)) return;
    const conn = connectionOf(req.socket);
    o.handle(toRequest(req, scheme), conn)
      .then((r) => writeResponse(r, res, req.method === "HEAD"))
      .catch((err) => {
        o.onError(`${req.method} ${req.url}: ${errorMessage(err)}`);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  });
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const conn = connectionOf(socket);
    // The same handler and gate as every request; an accepted stream (streaming.ts upgradeResponse)
    // becomes the proxied connection, anything else is written as the answer and the socket closed.
    o.handle(toRequest(req, scheme), conn)
      .then((r) => {
        const target = upgradeTargetOf(r);
        if (target) proxyUpgrade(req, socket, head, target, o.onError);
        else return writeRawResponse(r, socket);
      })
      .catch(() => socket.destroy());
  });
  // What the parser refuses gets the kubelet's status (431, 405, 400) instead of a silent close
  // (malformed-request.ts); so does CONNECT, which no route serves.
  http.on("clientError", (err: ParserError, socket: Duplex) => answerMalformedRequest(err, socket));
  http.on("connect", (_req: IncomingMessage, socket: Duplex) => answerConnect(socket));

  let server: NetServer;
  if (o.tls) {
    const t = o.tls;
    server = createTlsServer(
      // requestCert without rejectUnauthorized: a connection without a certificate, or with one that
      // does not verify, still gets to the gate, which answers 401 as the kubelet does (a TLS alert
      // would tell the client nothing).
      { cert: t.cert, key: t.key, ...(t.clientCA ? { ca: t.clientCA, requestCert: true, rejectUnauthorized: false } : {}) },
      (socket) => http.emit("connection", socket),
    );
    server.on("tlsClientError", () => undefined);
  } else {
    server = http;
  }
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return new Promise((resolve, reject) => {
    server.once("error", (err) => reject(err));
    // exclusive: no other process or worker may share the port (the kubelet fails to start instead).
    server.listen({ host: o.address, port: o.port, exclusive: true }, () => {
      server.on("error", (err) => o.onError(errorMessage(err)));
      const addr = server.address();
      resolve({
        port: typeof addr === "object" && addr ? addr.port : o.port,
        setCertificate: (cert, key) => {
          if (server !== http)
            (server as ReturnType<typeof createTlsServer>).setSecureContext({ cert, key, ...(o.tls?.clientCA ? { ca: o.tls.clientCA } : {}) });
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            if (server !== http) http.close();
            for (const s of sockets) s.destroy();
          }),
      });
    });
  });
}
