// /exec, /attach and /portForward: the kubelet's streaming endpoints (k/k@1.24.1 pkg/kubelet/server/
// server.go getExec/getAttach/getPortForward and proxyStream). Each request goes through three steps:
//   1. parse: the path names the pod (and for exec/attach the container), optionally its UID; the
//      query gives the streams as the API server sends them to a kubelet — input, output, error and
//      tty = "1" (k8s.io/api/core/v1 ExecStdinParam…; kubectl's stdin/stdout/stderr are the API
//      server's own PodExecOptions names) — read as remotecommand NewOptions does (tty drops error,
//      none of the three is a 400), and exec's `command`s;
//   2. resolve: the pod and container the agent runs → CRI Exec / Attach / PortForward, which answer
//      a single-use URL on the runtime's own streaming server (containerd: 127.0.0.1, a random port);
//   3. proxy: the client's upgrade request (SPDY/3.1 from kubectl and the API server, or WebSocket
//      channel.k8s.io) is replayed to that URL and the two connections are piped byte for byte, as
//      the kubelet's UpgradeAwareHandler does since it stopped redirecting. The protocols are the
//      runtime's: the agent neither speaks nor needs to understand SPDY or WebSocket framing.
// The caller's Authorization header is not forwarded: the runtime's URL is the credential.
// Error answers are plain text with the kubelet's words: 400 for bad options, 404 `pod does not
// exist`, 500 `container not found ("c")` (the kubelet's streaming.WriteError of GetExec's error),
// 400 `Upgrade request required` for a request that does not upgrade.
import type { IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";

export type StreamKind = "exec" | "attach" | "portForward";

export interface StreamRequest {
  kind: StreamKind;
  namespace: string;
  pod: string;
  /** The pod's UID when the path names it (/exec/ns/pod/uid/container): another UID is a 404. */
  uid?: string;
  /** exec and attach: the container. */
  container?: string;
  /** exec: the command, one `command` parameter per argument. */
  command: string[];
  /**
   * portForward over WebSocket: the ports (`port` parameters), which the runtime's streaming server
   * takes from the CRI request (SPDY names them in the stream instead).
   */
  ports: number[];
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface StreamRefusal {
  status: number;
  message: string;
}

export const STREAM_PREFIXES: readonly StreamKind[] = ["exec", "attach", "portForward"];

/** Whether a path is one of the streaming endpoints (so the server routes it here). */
export function isStreamPath(path: string): boolean {
  const first = path.split("/")[1];
  return STREAM_PREFIXES.includes(first as StreamKind);
}

/**
 * The request a streaming path and query ask for, or the kubelet's refusal. `webSocket`: the client
 * asks to upgrade to WebSocket (port-forward then needs its ports in the query, as NewV4Options says).
 */
export function parseStreamRequest(path: string, query: URLSearchParams, webSocket = false): StreamRequest | StreamRefusal {
  const seg = path
    .split("/")
    .slice(1)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return "";
      }
    });
  const kind = seg[0] as StreamKind;
  const rest = seg.slice(1);
  if (rest.some((s) => s === "")) return { status: 404, message: `the server could not find the requested resource: ${path}` };
  let namespace: string, pod: string, uid: string | undefined, container: string | undefined;
  if (kind === "portForward") {
    if (rest.length !== 2 && rest.length !== 3) return { status: 404, message: `the server could not find the requested resource: ${path}` };
    [namespace, pod, uid] = rest as [string, string, string | undefined];
  } else {
    if (rest.length !== 3 && rest.length !== 4) return { status: 404, message: `the server could not find the requested resource: ${path}` };
    namespace = rest[0]!;
    pod = rest[1]!;
    if (rest.length === 4) uid = rest[2];
    container = rest.at(-1);
  }
  const on = (k: string) => query.get(k) === "1";
  const tty = on("tty");
  const req: StreamRequest = {
    kind,
    namespace,
    pod,
    uid,
    container,
    command: kind === "exec" ? query.getAll("command") : [],
    ports: [],
    stdin: on("input"),
    stdout: on("output"),
    // remotecommand NewOptions: a terminal has one output stream; stderr is dropped, not refused.
    stderr: on("error") && !tty,
    tty,
  };
  if (kind !== "portForward" && !req.stdin && !req.stdout && !req.stderr)
    return { status: 400, message: "you must specify at least 1 of stdin, stdout, stderr" };
  if (kind === "portForward" && webSocket) {
    // apimachinery's portforward NewV4Options, for WebSocket requests.
    const given = query.getAll("port");
    if (given.length === 0) return { status: 400, message: `query parameter "port" is required` };
    for (const p of given) {
      const n = /^\d+$/.test(p) ? Number(p) : NaN;
      if (!(n <= 65535)) return { status: 400, message: `unable to parse "${p}" as a port: strconv.ParseUint: parsing ${JSON.stringify(p)}: invalid syntax` };
      if (n === 0) return { status: 400, message: `port "${p}" must be > 0` };
      req.ports.push(n);
    }
  }
  return req;
}

/** Whether the request asks to switch protocols (Connection: Upgrade with an Upgrade header). */
export function isUpgradeRequest(headers: { connection?: string | null; upgrade?: string | null }): boolean {
  const conn = String(headers.connection ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim());
  return conn.includes("upgrade") && !!headers.upgrade;
}

/**
 * The handler's answer to an upgrade request it accepted: a placeholder Response that the listener
 * recognizes and replaces by the proxied connection to `target` (the handler itself never sees the
 * socket, so the gate, the parsing and the refusals stay in one fetch-style handler).
 */
const upgradeTargets = new WeakMap<Response, URL>();

export function upgradeResponse(target: URL): Response {
  const r = new Response(null, { status: 200 });
  upgradeTargets.set(r, target);
  return r;
}

/** The runtime URL an upgradeResponse stands for, if r is one. */
export function upgradeTargetOf(r: Response): URL | undefined {
  return upgradeTargets.get(r);
}

/** Headers never replayed to the runtime: the caller's credential and the hop's own. */
const NOT_FORWARDED = new Set(["authorization", "host", "proxy-authorization", "content-length", "transfer-encoding"]);

/**
 * Replays an upgrade request to the runtime's streaming URL and pipes the two connections until
 * either side closes. `client` is the socket the HTTP server handed over on 'upgrade'; `head` the
 * bytes it had read past the request's headers.
 */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, target: URL, onError: (message: string) => void): void {
  if (target.protocol !== "http:") {
    refuseSocket(
      client,
      502,
      `the runtime's streaming URL ${target.origin} is not plain HTTP on the local host; TLS streaming (enable_tls_streaming) is not supported`,
    );
    return;
  }
  const upstream: Socket = connect(Number(target.port || 80), target.hostname);
  let connected = false;
  const close = () => {
    upstream.destroy();
    client.destroy();
  };
  upstream.on("connect", () => {
    connected = true;
    const lines = [`${req.method ?? "GET"} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!NOT_FORWARDED.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", (err) => {
    if (!connected) {
      onError(`cannot reach the runtime's streaming server at ${target.host}: ${err.message}`);
      refuseSocket(client, 502, `cannot reach the runtime's streaming server: ${err.message}`);
    } else close();
  });
  upstream.on("close", () => client.destroy());
  client.on("error", close);
  client.on("close", () => upstream.destroy());
}

/** A plain-text HTTP answer written on a raw socket (an upgrade request has no response object). */
export function refuseSocket(socket: Duplex, status: number, message: string): void {
  const reason =
    {
      400: "Bad Request",
      401: "Unauthorized",
      403: "Forbidden",
      404: "Not Found",
      500: "Internal Server Error",
      502: "Bad Gateway",
      503: "Service Unavailable",
    }[status] ?? "Error";
  const body = Buffer.from(message);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${message}`,
  );
}
