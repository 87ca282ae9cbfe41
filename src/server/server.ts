// The agent's HTTP API on Bun.serve: /healthz (Kubernetes healthz format), /pods and /pods/<ns>/<name>
// (v1 objects, like the kubelet's read-only /pods), /node, /events (the node's recent events), /metrics (Prometheus), and the push
// endpoints POST /pods and DELETE /pods/<ns>/<name>. Errors are v1 Status objects, as the API
// server returns them, so kubectl-style clients and `jq .message` both work.
//
// Every request but /healthz is authenticated first (auth.ts): with --push-token-file, reads need the
// token as writes do; an anonymous caller, where one is let in, gets pods with their secret-bearing
// fields redacted (redact.ts). No handler waits on the runtime without a bound: /pods, /metrics and
// the health checks read the agent's caches, and /node is built under a deadline (node-cache.ts).
// The routes are one table (route-table.ts) shared with the auth filter; the handlers are keyed by
// its rows below, so a route cannot exist without its authorization entry.
import * as fs from "node:fs";
import { parseAllDocuments } from "yaml";
import type { Pod } from "kubernetes-types/core/v1";
import { podKey, podRef } from "../api";
import { type Clock, errorMessage, type LogFields, readBodyCapped, RealClock } from "../util";
import { serveContainerLogs } from "./container-logs";
import { isUpgradeRequest, parseStreamRequest, upgradeResponse } from "./streaming";
import { checkRequest, isRefusal, servingExposureError, type AuthRefusal, type Caller } from "./auth";
import { Authenticator } from "./authn";
import { Authorizer } from "./authz";
import { listen, type Connection } from "./listener";
import type { AgentMetrics } from "./metrics";
import { heapReport } from "./heap-debug";
import { healthz, healthzOne } from "./healthz";
import { NodeCache } from "./node-cache";
import { failure, json, methodNotAllowed, oneLine, segment, statusObject, warningHeader } from "./responses";
import { allowedMethods, findRoute, routeAllows, type RouteName } from "./route-table";
import { REDACTION_WARNING, redactPod } from "./redact";
import type { AgentView } from "./types";
import { loadResourceMetrics } from "../stats";

export { statusObject };

/** The kubelet's maxConfigLength for a manifest (config/common.go): 10 MiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface AgentServerOptions {
  /** Address to listen on, e.g. "127.0.0.1", "0.0.0.0", "::". */
  address: string;
  /** Port; 0 picks a free one (tests). */
  port: number;
  /**
   * HTTPS with this certificate chain and key (tls.ts chooses them), and client certificates verified
   * against clientCAFile when given. Without it, plain HTTP: loopback only (--insecure-http).
   */
  tls?: { certFile: string; keyFile: string; clientCAFile?: string };
  /** The node's name: the name of the Node every request is authorized on (request-attributes.ts). */
  nodeName?: string;
  /**
   * The push token (--push-token-file): a bearer token authorized for everything. Without one the push
   * endpoints are disabled.
   */
  token?: string;
  /** --anonymous-read-only: callers without credentials may GET, pods redacted. */
  anonymousReadOnly?: boolean;
  /**
   * Who the caller is (authn.ts) and what it may do (authz.ts). When not given: the push token and,
   * with tls.clientCAFile, client certificates authenticate; only the push token is authorized.
   */
  authenticator?: Authenticator;
  authorizer?: Authorizer;
  view: AgentView;
  metrics: Pick<AgentMetrics, "render" | "contentType">;
  /** A util/log Logger, or anything with these methods (tests pass a silent one). */
  log: ServerLog;
  /** Times the /node deadline; a RealClock when not given. */
  clock?: Clock;
  /** How long GET /node waits for the node to be built (NODE_DEADLINE_MS, 5 s, when not given). */
  nodeDeadlineMs?: number;
}

export type ServerLog = Record<"info" | "warn" | "error" | "debug", (message: string, fields?: LogFields) => void>;

export interface AgentServer {
  /** Base URL, e.g. "https://127.0.0.1:10250". */
  url: string;
  port: number;
  /** Serves a new certificate and key (PEM) from the next TLS handshake on: a rotated serving certificate. */
  setServingCertificate(cert: string, key: string): void;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Push endpoints: body decoding

/**
 * Decodes a pushed manifest: JSON when the client says so, otherwise YAML 1.1 (which the kubelet's
 * go-yaml speaks: `yes`/`on` are booleans, `010` is octal), one document only.
 */
export function decodeManifest(body: string, contentType: string | null): { ok: true; value: unknown } | { ok: false; message: string } {
  if (body.trim() === "") return { ok: false, message: "request body is empty: expected a Pod as JSON or YAML" };
  if (contentType && /\bjson\b/i.test(contentType)) {
    try {
      return { ok: true, value: JSON.parse(body) };
    } catch (err) {
      return { ok: false, message: `invalid JSON: ${errorMessage(err)}` };
    }
  }
  const docs = parseAllDocuments(body, { version: "1.1", prettyErrors: true });
  if (!Array.isArray(docs)) return { ok: false, message: "request body is empty: expected a Pod as JSON or YAML" };
  const nonEmpty = docs.filter((d) => d.contents !== null || d.errors.length > 0);
  if (nonEmpty.length === 0) return { ok: false, message: "request body is empty: expected a Pod as JSON or YAML" };
  if (nonEmpty.length > 1) return { ok: false, message: `the body has ${nonEmpty.length} YAML documents; push one Pod per request` };
  const doc = nonEmpty[0]!;
  if (doc.errors.length > 0) return { ok: false, message: `invalid YAML: ${oneLine(doc.errors.map((e) => e.message).join("; "))}` };
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: 100 }) };
  } catch (err) {
    return { ok: false, message: `invalid YAML: ${errorMessage(err)}` };
  }
}

// ---------------------------------------------------------------------------------------------
// Routing

/** What a route's handler is given: the request, its caller, and the path split at "/". */
interface RouteContext {
  req: Request;
  conn: Connection;
  caller: Caller;
  url: URL;
  path: string;
  /** The request's method, HEAD read as GET. */
  method: string;
  segments: string[];
}

interface RouteHandler {
  /** The view offers this endpoint (events, configz, stats, streaming are optional): 404 otherwise. */
  available?: () => boolean;
  /** A refusal that comes before the method check. */
  before?: (c: RouteContext) => Response | undefined;
  handle: (c: RouteContext) => Response | Promise<Response>;
}

/** A request handler: Bun.serve's fetch, with the connection the listener saw. */
export type Handler = (req: Request, conn?: Connection) => Promise<Response>;

/** Builds the request handler (exported for tests that want to skip the socket). */
export function createHandler(o: Omit<AgentServerOptions, "address" | "port">): Handler {
  const { view, metrics, log } = o;
  const clock = o.clock ?? new RealClock();
  const nodes = new NodeCache({ build: () => view.node(), clock, deadlineMs: o.nodeDeadlineMs });
  const gate = {
    nodeName: o.nodeName ?? "localhost",
    authenticator: o.authenticator ?? new Authenticator({ pushToken: o.token, x509: !!o.tls?.clientCAFile, anonymous: false, clock }),
    authorizer: o.authorizer ?? new Authorizer({ mode: "PushTokenOnly", clock }),
    anonymousReadOnly: o.anonymousReadOnly,
  };

  function refuse(req: Request, conn: Connection, r: AuthRefusal): Response {
    // The kubelet's filter logs each refusal; a missing or wrong credential may be an attack.
    log.warn("request rejected", { method: req.method, path: new URL(req.url).pathname, remote: conn.remote, status: r.code, reason: r.reason });
    // resp.WriteErrorString: the bare text, which Go's server labels text/plain.
    return new Response(r.body, { status: r.code, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });
  }

  /** The push endpoints exist only with a push token; the caller got past the gate already. */
  function pushDisabled(): Response | undefined {
    if (o.token) return undefined;
    return failure(403, "the push endpoints are disabled: start the agent with --push-token-file to enable POST /pods and DELETE /pods/<namespace>/<name>");
  }

  // The view answers the same object for a pod while it has not changed (AgentView.pods), so its
  // redacted copy and its JSON are made once, not on every GET /pods of a monitor that polls.
  const redactionWarning = warningHeader(REDACTION_WARNING);
  const redacted = new WeakMap<Pod, Pod>();
  const podJson = new WeakMap<Pod, string>();
  const redactedOf = (p: Pod): Pod => {
    let r = redacted.get(p);
    if (!r) redacted.set(p, (r = redactPod(p)));
    return r;
  };
  const jsonOf = (p: Pod): string => {
    let j = podJson.get(p);
    if (j === undefined) podJson.set(p, (j = JSON.stringify(p)));
    return j;
  };

  /** The pods as `caller` may see them, and the headers that say what was hidden. */
  function podsFor(caller: Caller, pods: Pod[]): { items: Pod[]; headers: Record<string, string> } {
    if (!caller.redacted) return { items: pods, headers: {} };
    return { items: pods.map(redactedOf), headers: { Warning: redactionWarning } };
  }

  async function pushPod(req: Request, conn: Connection): Promise<Response> {
    const disabled = pushDisabled();
    if (disabled) return disabled;
    const read = await readBodyCapped(req, MAX_BODY_BYTES);
    if (!read.ok) return failure(413, `request body is larger than ${MAX_BODY_BYTES} bytes (10 MiB), the kubelet's limit for a manifest`);
    let textBody: string;
    try {
      textBody = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
    } catch {
      return failure(400, "request body is not valid UTF-8");
    }
    const decoded = decodeManifest(textBody, req.headers.get("content-type"));
    if (!decoded.ok) return failure(400, decoded.message);
    if (decoded.value === null || typeof decoded.value !== "object" || Array.isArray(decoded.value)) {
      return failure(400, "expected a Pod object (a JSON object or YAML mapping with kind: Pod)");
    }
    const result = await view.pushPod(decoded.value);
    if (!result.ok) {
      log.info("push refused", { status: result.status, reason: result.message, remote: conn.remote });
      return failure(result.status, result.message);
    }
    log.info("pod pushed", { pod: podKey(result.pod), remote: conn.remote });
    // 201 like the API server's create: the body is the pod as the agent accepted it (defaulted).
    return json(result.pod, 201);
  }

  async function deletePod(conn: Connection, namespace: string, name: string): Promise<Response> {
    const disabled = pushDisabled();
    if (disabled) return disabled;
    if (!(await view.deletePushedPod(namespace, name))) {
      return failure(404, `pods "${name}" not found: no pushed pod has that name in namespace "${namespace}"`);
    }
    log.info("pushed pod deleted", { pod: `${namespace}/${name}`, remote: conn.remote });
    return json(statusObject(200, `pod "${name}" deleted`, { name, kind: "pods" }));
  }

  /**
   * /stats/summary (the Summary API's JSON; `only_cpu_and_memory=true` trims it) and /metrics/resource
   * (the kubelet's resource metrics, from a cpu-and-memory summary; scrape_error 1 when it fails).
   */
  async function stats(summary: NonNullable<AgentView["summary"]>, path: string, url: URL): Promise<Response> {
    if (path === "/metrics/resource") {
      const { renderResourceMetrics, RESOURCE_METRICS_CONTENT_TYPE } = await loadResourceMetrics();
      const s = await summary(true).catch((err) => {
        log.warn("/metrics/resource: no summary", { err });
        return undefined;
      });
      return new Response(renderResourceMetrics(s), { headers: { "Content-Type": RESOURCE_METRICS_CONTENT_TYPE } });
    }
    const only = url.searchParams.get("only_cpu_and_memory");
    if (only !== null && only !== "true" && only !== "false") return failure(400, `only_cpu_and_memory: ${JSON.stringify(only)} is not true or false`);
    return json(await summary(only === "true"));
  }

  /**
   * /exec, /attach, /portForward (streaming.ts): the kubelet's checks in its order — the options, the
   * pod and container, the runtime's URL — then, for an upgrade request, the placeholder the listener
   * turns into the proxied connection; without an upgrade, the kubelet's proxy's 400.
   */
  async function stream(streamUrl: NonNullable<AgentView["streamUrl"]>, req: Request, caller: Caller, url: URL): Promise<Response> {
    const text = (status: number, message: string) =>
      new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });
    // A WebSocket exec is a GET: the anonymous read-only view lets GETs in, but never to a container.
    if (caller.redacted) return text(403, "Forbidden: exec, attach and port-forward are not part of the anonymous read-only view (--anonymous-read-only)");
    if (req.method !== "GET" && req.method !== "POST") return methodNotAllowed(req.method, url.pathname, ["GET", "POST"]);
    const parsed = parseStreamRequest(url.pathname, url.searchParams, req.headers.get("upgrade")?.toLowerCase() === "websocket");
    if ("status" in parsed) return text(parsed.status, parsed.message);
    const target = await streamUrl(parsed);
    if (typeof target !== "string") return text(target.status, target.message);
    if (!isUpgradeRequest({ connection: req.headers.get("connection"), upgrade: req.headers.get("upgrade") })) return text(400, "Upgrade request required");
    log.info("streaming request", {
      kind: parsed.kind,
      pod: `${parsed.namespace}/${parsed.pod}`,
      container: parsed.container || undefined,
      user: caller.user.name,
    });
    return upgradeResponse(new URL(target));
  }

  // One handler per row of the route table (route-table.ts): the type makes a row without a handler,
  // or a handler without a row (and so without its authorization), a compile error.
  const handlers: Record<RouteName, RouteHandler> = {
    healthz: { handle: ({ url }) => healthz(view.healthChecks(), url) },
    healthzCheck: {
      handle: ({ path, segments }) => {
        const name = segment(segments[1]!);
        if (name === undefined) return failure(400, `malformed path ${path}`);
        return healthzOne(view.healthChecks(), name);
      },
    },
    containerLogs: { handle: ({ req, segments, caller }) => serveContainerLogs(req, segments, caller, { view, log, clock }) },
    stream: { available: () => !!view.streamUrl, handle: ({ req, caller, url }) => stream(view.streamUrl!.bind(view), req, caller, url) },
    configz: {
      available: () => !!view.configz,
      handle: ({ caller }) => {
        // The read-only view hides what could carry a secret; the configuration names files and CAs.
        if (caller.redacted) return failure(403, "/configz is not part of the anonymous read-only view (--anonymous-read-only)");
        return json(view.configz!());
      },
    },
    debugHeap: {
      handle: ({ caller }) => {
        if (caller.redacted) return failure(403, "/debug/heap is not part of the anonymous read-only view (--anonymous-read-only)");
        return json(heapReport());
      },
    },
    pods: {
      handle: ({ req, conn, caller, method }) => {
        if (method === "POST") return pushPod(req, conn);
        const { items, headers } = podsFor(caller, view.pods());
        // JSON.stringify of a PodList { kind, apiVersion, metadata, items }, each item's JSON kept.
        const body = `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${items.map(jsonOf).join(",")}]}`;
        return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ...headers } });
      },
    },
    pod: {
      // A malformed name is refused before the method is looked at.
      before: ({ path, segments }) =>
        segment(segments[1]!) === undefined || segment(segments[2]!) === undefined ? failure(400, `malformed path ${path}`) : undefined,
      handle: ({ conn, caller, method, segments }) => {
        const namespace = segment(segments[1]!)!;
        const name = segment(segments[2]!)!;
        if (method === "DELETE") return deletePod(conn, namespace, name);
        const pod = view.pods().find((p) => {
          const r = podRef(p);
          return r.namespace === namespace && r.name === name;
        });
        if (!pod) return failure(404, `pods "${name}" not found`);
        const { items, headers } = podsFor(caller, [pod]);
        return json(items[0], 200, headers);
      },
    },
    // The kubelet has no such endpoint; its events go to the API server, where `kubectl get events`
    // reads them. A standalone node keeps them here (v1 EventList).
    events: { available: () => !!view.events, handle: () => json({ kind: "EventList", apiVersion: "v1", metadata: {}, items: view.events!() }) },
    node: {
      handle: async () => {
        const answer = await nodes.get();
        if (answer.kind === "fresh") return json(answer.node);
        if (answer.kind === "stale") return json(answer.node, 200, { Warning: warningHeader(answer.warning) });
        return failure(503, answer.message, { "Retry-After": String(answer.retryAfterSeconds) });
      },
    },
    metrics: { handle: async () => new Response(await metrics.render(), { headers: { "Content-Type": metrics.contentType } }) },
    statsSummary: { available: () => !!view.summary, handle: ({ path, url }) => stats(view.summary!.bind(view), path, url) },
    resourceMetrics: { available: () => !!view.summary, handle: ({ path, url }) => stats(view.summary!.bind(view), path, url) },
  };

  async function route(req: Request, conn: Connection): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    // The gate first, for every path: the kubelet authenticates and authorizes before routing.
    const caller = await checkRequest(gate, req.method, path, { authorization: req.headers.get("authorization"), ...(conn.peer ? { peer: conn.peer } : {}) });
    if (isRefusal(caller)) return refuse(req, conn, caller);
    const r = findRoute(path);
    const h = r && handlers[r.name];
    if (!r || !h || (h.available && !h.available())) return failure(404, `the server could not find the requested resource: ${path}`);
    const ctx: RouteContext = { req, conn, caller, url, path, method: req.method === "HEAD" ? "GET" : req.method, segments: path.split("/").slice(1) };
    const early = h.before?.(ctx);
    if (early) return early;
    if (!routeAllows(r, ctx.method)) return methodNotAllowed(req.method, path, allowedMethods(r));
    return h.handle(ctx);
  }

  return async function handle(req: Request, conn: Connection = { remote: "unknown" }): Promise<Response> {
    try {
      return await route(req, conn);
    } catch (err) {
      // An error that says which HTTP status it is (the push source's 503 while its state file cannot
      // be read) answers with it; any other failing view is a 500 with the reason, never a dropped
      // connection.
      const status = (err as { status?: unknown } | undefined)?.status;
      if (typeof status === "number" && status >= 400 && status < 600) {
        log.warn("request failed", { method: req.method, path: new URL(req.url).pathname, status, err });
        return failure(status, errorMessage(err), status === 503 ? { "Retry-After": "10" } : {});
      }
      log.error("request failed with an internal error", { method: req.method, path: new URL(req.url).pathname, err });
      return failure(500, `internal error: ${errorMessage(err)}`);
    }
  };
}

function readTlsFile(path: string, what: string): string {
  try {
    return fs.readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`cannot read the TLS ${what} ${path}: ${errorMessage(err)}`);
  }
}

export async function startAgentServer(o: AgentServerOptions): Promise<AgentServer> {
  // The command checks this before starting anything; checked again here so no caller can forget.
  const exposed = servingExposureError(o.address, !o.tls);
  if (exposed) throw new Error(exposed);
  const tls = o.tls
    ? {
        cert: readTlsFile(o.tls.certFile, "certificate"),
        key: readTlsFile(o.tls.keyFile, "key"),
        ...(o.tls.clientCAFile ? { clientCA: readTlsFile(o.tls.clientCAFile, "client CA file") } : {}),
      }
    : undefined;
  const handle = createHandler(o);
  let listener;
  try {
    listener = await listen({ address: o.address, port: o.port, tls, handle, onError: (m) => o.log.error("HTTP server error", { err: m }) });
  } catch (err) {
    throw new Error(`cannot listen on ${o.address}:${o.port}: ${errorMessage(err)}`);
  }
  const port = listener.port;
  const host = o.address.includes(":") ? `[${o.address}]` : o.address;
  const url = `${tls ? "https" : "http"}://${host}:${port}`;
  const who = [
    o.tls?.clientCAFile ? "client certificates" : "",
    o.token ? "the push token" : "",
    o.authenticator?.acceptsCredentials && !o.tls?.clientCAFile && !o.token ? "bearer tokens (TokenReview)" : "",
  ].filter(Boolean);
  const access = `${who.length ? `authenticating ${who.join(", ")}` : "no credential accepted"}; authorization ${o.authorizer?.mode ?? "PushTokenOnly"}${o.anonymousReadOnly ? "; anonymous reads redacted (--anonymous-read-only)" : ""}`;
  o.log.info("HTTP API listening", { url, access });
  const running = listener;
  return {
    url,
    port,
    setServingCertificate: (cert, key) => running.setCertificate(cert, key),
    async stop() {
      await running.close();
    },
  };
}
