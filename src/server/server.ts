// The agent's HTTP API on Bun.serve: /healthz (Kubernetes healthz format), /pods and /pods/<ns>/<name>
// (v1 objects, like the kubelet's read-only /pods), /node, /metrics (Prometheus), and the push
// endpoints POST /pods and DELETE /pods/<ns>/<name>. Errors are v1 Status objects, as the API
// server returns them, so kubectl-style clients and `jq .message` both work.
//
// Every request but /healthz is authenticated first (auth.ts): with --push-token-file, reads need the
// token as writes do; an anonymous caller, where one is let in, gets pods with their secret-bearing
// fields redacted (redact.ts). No handler waits on the runtime without a bound: /pods, /metrics and
// the health checks read the agent's caches, and /node is built under a deadline (node-cache.ts).
import * as fs from "node:fs";
import { parseAllDocuments } from "yaml";
import type { Status } from "kubernetes-types/meta/v1";
import type { Pod } from "kubernetes-types/core/v1";
import { podKey, podRef } from "../api/pod";
import { RealClock, type Clock } from "../util/clock";
import { errorMessage } from "../util/errors";
import { serveContainerLogs } from "./container-logs";
import { authenticate, isRefusal, servingExposureError, writeRefusal, type AuthRefusal, type Caller } from "./auth";
import type { AgentMetrics } from "./metrics";
import { NodeCache } from "./node-cache";
import { REDACTION_WARNING, redactPod } from "./redact";
import type { AgentView, HealthCheck } from "./types";

/** The kubelet's maxConfigLength for a manifest (config/common.go): 10 MiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface AgentServerOptions {
  /** Address to listen on, e.g. "127.0.0.1", "0.0.0.0", "::". */
  address: string;
  /** Port; 0 picks a free one (tests). */
  port: number;
  tls?: { certFile: string; keyFile: string };
  /**
   * The push token (--push-token-file): every endpoint but /healthz needs it as a bearer token.
   * Without one the push endpoints are disabled and every caller is anonymous.
   */
  token?: string;
  /**
   * --anonymous-read-only: callers without credentials may GET (pods redacted) even with a token,
   * and an agent without a token may listen on an address other than loopback.
   */
  anonymousReadOnly?: boolean;
  view: AgentView;
  metrics: Pick<AgentMetrics, "render" | "contentType">;
  /** A util/log Logger, or anything with these methods (tests pass a silent one). */
  log: ServerLog;
  /** Times the /node deadline; a RealClock when not given. */
  clock?: Clock;
  /** How long GET /node waits for the node to be built (NODE_DEADLINE_MS, 5 s, when not given). */
  nodeDeadlineMs?: number;
}

export type ServerLog = Record<"info" | "warn" | "error" | "debug", (message: string) => void>;

export interface AgentServer {
  /** Base URL, e.g. "http://127.0.0.1:10250". */
  url: string;
  port: number;
  stop(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Responses

/** HTTP status → the API server's StatusReason (k8s.io/apimachinery/pkg/apis/meta/v1 types.go). */
const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "AlreadyExists",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function statusObject(code: number, message: string, details?: Status["details"]): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: code < 400 ? "Success" : "Failure", message, code };
  const reason = code < 400 ? undefined : (REASONS[code] ?? (code >= 500 ? "InternalError" : "BadRequest"));
  if (reason) status.reason = reason;
  if (details) status.details = details;
  return status;
}

function failure(code: number, message: string, headers: Record<string, string> = {}): Response {
  return json(statusObject(code, message), code, headers);
}

function text(body: string, status = 200, headers: Record<string, string> = {}): Response {
  // healthz sets nosniff so a browser never renders check messages as HTML.
  return new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", ...headers } });
}


/** An RFC 7234 Warning header as the API server sends its warnings: 299 - "text" (kubectl prints them). */
function warningHeader(message: string): string {
  return `299 - ${JSON.stringify(oneLine(message).replace(/[^\x20-\x7e]/g, "?"))}`;
}

// ---------------------------------------------------------------------------------------------
// healthz

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

/** " (warning: …)" for a check that carries one: shown in the verbose lines, never a failure. */
function warningSuffix(c: HealthCheck): string {
  const w = c.warning ? oneLine(c.warning) : "";
  return w ? ` (warning: ${w})` : "";
}

/**
 * The Kubernetes healthz handler (k8s.io/apiserver/pkg/server/healthz): "ok" when every check passes,
 * otherwise "[+]name ok" / "[-]name failed: …" lines and "healthz check failed" with 500; ?verbose
 * gives the lines always; ?exclude=name skips a check. Unlike the API server, which writes
 * "reason withheld" and logs the reason, we print the message: the kubelet's own checks (PLEG, sync
 * loop) are about this node, and saying why it is unhealthy is the point of the endpoint.
 * A check's warning (a source that cannot be read but keeps its pods) is printed after its line and
 * fails nothing: the plain /healthz stays "ok", so it never makes the node NotReady.
 */
function healthz(checks: HealthCheck[], url: URL): Response {
  const excluded = new Set(url.searchParams.getAll("exclude"));
  let lines = "";
  let failed = false;
  for (const c of checks) {
    if (excluded.has(c.name)) {
      lines += `[+]${c.name} excluded: ok\n`;
      excluded.delete(c.name);
    } else if (c.ok) {
      lines += `[+]${c.name} ok${warningSuffix(c)}\n`;
    } else {
      lines += `[-]${c.name} failed: ${oneLine(c.message) || "unhealthy"}${warningSuffix(c)}\n`;
      failed = true;
    }
  }
  // The API server warns about excluded checks that do not exist; so do we, in the body.
  for (const name of excluded) lines += `warn: some health checks cannot be excluded: no matches for "${name}"\n`;
  if (failed) return text(`${lines}healthz check failed\n`, 500);
  if (!url.searchParams.has("verbose")) return text("ok");
  return text(`${lines}healthz check passed\n`);
}

/** /healthz/<name>: one check, "ok" or 500 "internal server error: …" (healthz adaptCheckToHandler). */
function healthzOne(checks: HealthCheck[], name: string): Response {
  const c = checks.find((x) => x.name === name);
  if (!c) return failure(404, `health check "${name}" not found`);
  return c.ok ? text("ok") : text(`internal server error: ${oneLine(c.message)}\n`, 500);
}

// ---------------------------------------------------------------------------------------------
// Push endpoints: body decoding

async function readBody(req: Request, limit: number): Promise<Uint8Array | "too-large"> {
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return "too-large";
  if (!req.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return "too-large";
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

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

function methodNotAllowed(method: string, path: string, allow: string[]): Response {
  return failure(405, `method ${method} is not allowed on ${path}; allowed: ${allow.join(", ")}`, { Allow: allow.join(", ") });
}

/** A decoded path segment, or undefined for a malformed escape such as "%zz". */
function segment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** Builds the request handler (exported for tests that want to skip the socket). */
export function createHandler(o: Omit<AgentServerOptions, "address" | "port" | "tls">, remote: (req: Request) => string = () => ""): (req: Request) => Promise<Response> {
  const { view, metrics, log } = o;
  const nodes = new NodeCache({ build: () => view.node(), clock: o.clock ?? new RealClock(), deadlineMs: o.nodeDeadlineMs });

  function refuse(req: Request, r: AuthRefusal): Response {
    // A disabled endpoint is not an attack; a missing or wrong credential may be, so it is logged.
    if (r.code === 401 || r.reason === "wrong bearer token") log.warn(`rejected ${req.method} ${new URL(req.url).pathname} from ${remote(req)}: ${r.reason}`);
    return failure(r.code, r.message, r.headers);
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
    if (caller.authenticated) return { items: pods, headers: {} };
    return { items: pods.map(redactedOf), headers: { Warning: redactionWarning } };
  }

  async function pushPod(req: Request, caller: Caller): Promise<Response> {
    const denied = writeRefusal(o, caller);
    if (denied) return refuse(req, denied);
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === "too-large") return failure(413, `request body is larger than ${MAX_BODY_BYTES} bytes (10 MiB), the kubelet's limit for a manifest`);
    let textBody: string;
    try {
      textBody = new TextDecoder("utf-8", { fatal: true }).decode(body);
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
      log.info(`push refused (${result.status}): ${result.message}`);
      return failure(result.status, result.message);
    }
    log.info(`pod ${podKey(result.pod)} pushed from ${remote(req)}`);
    // 201 like the API server's create: the body is the pod as the agent accepted it (defaulted).
    return json(result.pod, 201);
  }

  async function deletePod(req: Request, caller: Caller, namespace: string, name: string): Promise<Response> {
    const denied = writeRefusal(o, caller);
    if (denied) return refuse(req, denied);
    if (!(await view.deletePushedPod(namespace, name))) {
      return failure(404, `pods "${name}" not found: no pushed pod has that name in namespace "${namespace}"`);
    }
    log.info(`pushed pod ${namespace}/${name} deleted by ${remote(req)}`);
    return json(statusObject(200, `pod "${name}" deleted`, { name, kind: "pods" }));
  }

  /**
   * /stats/summary (the Summary API's JSON; `only_cpu_and_memory=true` trims it) and /metrics/resource
   * (the kubelet's resource metrics, from a cpu-and-memory summary; scrape_error 1 when it fails).
   */
  async function stats(summary: NonNullable<AgentView["summary"]>, path: string, method: string, url: URL): Promise<Response> {
    if (method !== "GET") return methodNotAllowed(method, path, ["GET", "HEAD"]);
    if (path === "/metrics/resource") {
      const { renderResourceMetrics, RESOURCE_METRICS_CONTENT_TYPE } = await import("../stats/resource-metrics");
      const s = await summary(true).catch((err) => {
        log.warn(`/metrics/resource: ${errorMessage(err)}`);
        return undefined;
      });
      return new Response(renderResourceMetrics(s), { headers: { "Content-Type": RESOURCE_METRICS_CONTENT_TYPE } });
    }
    const only = url.searchParams.get("only_cpu_and_memory");
    if (only !== null && only !== "true" && only !== "false") return failure(400, `only_cpu_and_memory: ${JSON.stringify(only)} is not true or false`);
    return json(await summary(only === "true"));
  }

  async function route(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    const method = req.method === "HEAD" ? "GET" : req.method;
    const segments = path.split("/").slice(1);

    if (path === "/healthz") {
      if (method !== "GET") return methodNotAllowed(req.method, path, ["GET", "HEAD"]);
      return healthz(view.healthChecks(), url);
    }
    if (segments[0] === "healthz" && segments.length === 2 && segments[1]) {
      if (method !== "GET") return methodNotAllowed(req.method, path, ["GET", "HEAD"]);
      const name = segment(segments[1]);
      if (name === undefined) return failure(400, `malformed path ${path}`);
      return healthzOne(view.healthChecks(), name);
    }
    // Everything else needs credentials, when the agent has them, before the path is even looked at.
    const caller = authenticate(o, method, req.headers.get("authorization"));
    if (isRefusal(caller)) return refuse(req, caller);
    if (segments[0] === "containerLogs") return serveContainerLogs(req, segments, caller, { view, log, clock: o.clock ?? new RealClock(), policy: o });
    if (path === "/pods") {
      if (method === "GET") {
        const { items, headers } = podsFor(caller, view.pods());
        // JSON.stringify of a PodList { kind, apiVersion, metadata, items }, each item's JSON kept.
        const body = `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[${items.map(jsonOf).join(",")}]}`;
        return new Response(body, { status: 200, headers: { "Content-Type": "application/json", ...headers } });
      }
      if (method === "POST") return pushPod(req, caller);
      return methodNotAllowed(req.method, path, ["GET", "HEAD", "POST"]);
    }
    if (segments[0] === "pods" && segments.length === 3 && segments[1] && segments[2]) {
      const namespace = segment(segments[1]);
      const name = segment(segments[2]);
      if (namespace === undefined || name === undefined) return failure(400, `malformed path ${path}`);
      if (method === "GET") {
        const pod = view.pods().find((p) => {
          const r = podRef(p);
          return r.namespace === namespace && r.name === name;
        });
        if (!pod) return failure(404, `pods "${name}" not found`);
        const { items, headers } = podsFor(caller, [pod]);
        return json(items[0], 200, headers);
      }
      if (method === "DELETE") return deletePod(req, caller, namespace, name);
      return methodNotAllowed(req.method, path, ["GET", "HEAD", "DELETE"]);
    }
    if (path === "/node") {
      if (method !== "GET") return methodNotAllowed(req.method, path, ["GET", "HEAD"]);
      const answer = await nodes.get();
      if (answer.kind === "fresh") return json(answer.node);
      if (answer.kind === "stale") return json(answer.node, 200, { Warning: warningHeader(answer.warning) });
      return failure(503, answer.message, { "Retry-After": String(answer.retryAfterSeconds) });
    }
    if (path === "/metrics") {
      if (method !== "GET") return methodNotAllowed(req.method, path, ["GET", "HEAD"]);
      return new Response(await metrics.render(), { headers: { "Content-Type": metrics.contentType } });
    }
    if ((path === "/stats/summary" || path === "/metrics/resource") && view.summary) return stats(view.summary.bind(view), path, method, url);
    return failure(404, `the server could not find the requested resource: ${path}`);
  }

  return async function handle(req: Request): Promise<Response> {
    try {
      return await route(req);
    } catch (err) {
      // An error that says which HTTP status it is (the push source's 503 while its state file cannot
      // be read) answers with it; any other failing view is a 500 with the reason, never a dropped
      // connection.
      const status = (err as { status?: unknown } | undefined)?.status;
      if (typeof status === "number" && status >= 400 && status < 600) {
        log.warn(`${req.method} ${new URL(req.url).pathname}: ${status} ${errorMessage(err)}`);
        return failure(status, errorMessage(err), status === 503 ? { "Retry-After": "10" } : {});
      }
      log.error(`${req.method} ${new URL(req.url).pathname} failed: ${errorMessage(err)}`);
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
  const exposed = servingExposureError(o.address, o);
  if (exposed) throw new Error(exposed);
  const tls = o.tls ? { cert: readTlsFile(o.tls.certFile, "certificate"), key: readTlsFile(o.tls.keyFile, "key") } : undefined;
  let server: ReturnType<typeof Bun.serve> | undefined;
  const handle = createHandler(o, (req) => {
    const ip = server?.requestIP(req);
    return ip ? `${ip.address}:${ip.port}` : "unknown";
  });
  try {
    server = Bun.serve({
      hostname: o.address,
      port: o.port,
      tls,
      development: false,
      // Bun binds with SO_REUSEPORT unless told not to (whatever its types say), so a second agent
      // on the same port would silently share the traffic; the kubelet fails to start instead.
      reusePort: false,
      // Our own limit (MAX_BODY_BYTES) answers with a Status; Bun's is only a backstop against
      // bodies far past it.
      maxRequestBodySize: 2 * MAX_BODY_BYTES,
      fetch: handle,
      error(err) {
        o.log.error(`HTTP server error: ${errorMessage(err)}`);
        return failure(500, `internal error: ${errorMessage(err)}`);
      },
    });
  } catch (err) {
    throw new Error(`cannot listen on ${o.address}:${o.port}: ${errorMessage(err)}`);
  }
  const port = server.port ?? o.port;
  const host = o.address.includes(":") ? `[${o.address}]` : o.address;
  const url = `${tls ? "https" : "http"}://${host}:${port}`;
  const access = o.token
    ? o.anonymousReadOnly
      ? "bearer token required, except redacted anonymous reads (--anonymous-read-only)"
      : "bearer token required on every endpoint but /healthz"
    : "push endpoints disabled and reads redacted: no --push-token-file";
  o.log.info(`HTTP API listening on ${url} (${access})`);
  const running = server;
  return {
    url,
    port,
    async stop() {
      await running.stop(true);
    },
  };
}
