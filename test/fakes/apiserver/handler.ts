// HTTP in, Kubernetes API semantics out: URL → (group, version, resource, namespace, name, subresource),
// verb from method and query, then authentication → injected faults → authorization/admission →
// registry, answering JSON objects, lists and newline-delimited watch streams in the apiserver's wire
// format (errors as meta/v1 Status). Every request is logged for tests to assert on.
import type { DeleteOptions } from "kubernetes-types/meta/v1";
import { authorize, type User, type Verb } from "./auth";
import { isPlainObject, type AnyObject } from "./objects";
import { target, type Registry } from "./registry";
import { apiVersionOf, resourceByPath, type ResourceDef } from "./resources";
import { parseFieldSelector, parseLabelSelector } from "./selectors";
import { subjectAccessReview, tokenReview, type AccessPolicy } from "./reviews";
import { createToken, type TokenIssuer } from "./token";
import { prepareCsrCreate, type CertificateController } from "./certificates";
import { ApiError, badRequest, injected, methodNotAllowed, notFound, notFoundPath, unauthorized } from "./status";

export interface RequestRecord {
  verb: Verb | "deletecollection" | "unknown";
  /** API group, "" for core. */
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** The authenticated user, undefined for an unauthenticated call. */
  user?: string;
  /** The client certificate's SHA-256 fingerprint when the user was authenticated by one. */
  certificate?: string;
  /** HTTP status answered; for a watch that ended in a 410 ERROR event, 410. */
  code: number;
  query: Record<string, string>;
  /** When the request arrived (Date.now()), to check a client's rate. */
  at: number;
}

export interface FaultMatch {
  verb?: RequestRecord["verb"];
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  user?: string;
}

interface Fault {
  match: FaultMatch;
  code: number;
  times: number;
  /** Sent as Retry-After (and details.retryAfterSeconds), as the API server does with its 429s. */
  retryAfterSeconds?: number;
}

interface Route {
  def: ResourceDef;
  namespace?: string;
  name?: string;
  subresource?: string;
  watchPath: boolean;
}

export interface HandlerOptions {
  registry: Registry;
  users: Map<string, User>;
  bookmarkIntervalMs: number;
  tokenIssuer: TokenIssuer;
  /** The server's clock (tokens' iat and expiry). */
  now: () => number;
  /** How SubjectAccessReviews are decided (reviews.ts), as the test set it last. */
  accessPolicy: () => AccessPolicy;
  /** The controller manager's CSR approver and signer (certificates.ts), when the test wants them. */
  certificates?: CertificateController;
}

/** The client certificate of the connection (with the certificates option): the x509 authenticator's input. */
export interface PeerIdentity {
  verified: boolean;
  commonName?: string;
  organizations: string[];
  /** SHA-256 fingerprint, for tests asserting which certificate a request came with. */
  fingerprint?: string;
}

const JSON_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-cache, private" };

export class ApiHandler {
  readonly requests: RequestRecord[] = [];
  private readonly faults: Fault[] = [];
  /** Open watch streams, each closed by calling it, with the request that opened it. */
  private readonly openWatches = new Map<() => void, RequestRecord>();

  constructor(private readonly o: HandlerOptions) {}

  failNext(match: FaultMatch, code: number, times = 1, retryAfterSeconds?: number): void {
    this.faults.push({ match, code, times, retryAfterSeconds });
  }

  /** Ends every watch stream (the client sees a clean end of the response). */
  dropWatches(): void {
    for (const close of [...this.openWatches.keys()]) close();
  }

  /** The requests of the watch streams open now. */
  watching(): RequestRecord[] {
    return [...this.openWatches.values()];
  }

  async handle(req: Request, server: { timeout(req: Request, seconds: number): void }, peer?: PeerIdentity): Promise<Response> {
    const url = new URL(req.url);
    const query = Object.fromEntries(url.searchParams);
    if (["/healthz", "/livez", "/readyz"].includes(url.pathname)) return new Response("ok", { headers: { "Content-Type": "text/plain; charset=utf-8" } });
    if (url.pathname === "/version") return json(200, { major: "1", minor: "30", gitVersion: "v1.30.0-nodeagent-test", platform: "linux/amd64" });
    const record: RequestRecord = { verb: "unknown", group: "", resource: "", code: 0, query, at: Date.now() };
    try {
      const route = parseRoute(url.pathname);
      record.group = route.def.group;
      record.resource = route.def.plural;
      record.subresource = route.subresource;
      record.namespace = route.namespace;
      record.name = route.name;
      record.verb = verbOf(req.method, route, url.searchParams);
      const token = /^Bearer\s+(.+)$/i.exec(req.headers.get("Authorization") ?? "")?.[1];
      let user = token ? this.o.users.get(token) : undefined;
      // The x509 authenticator, after the token one: a verified client certificate is CN's user in O's
      // groups (x509.CommonNameUserConversion); one that does not verify is a 401.
      if (!user && !token && peer?.commonName) {
        if (!peer.verified) throw unauthorized();
        user = { name: peer.commonName, groups: [...peer.organizations, "system:authenticated"] };
        record.certificate = peer.fingerprint;
      }
      if (!user) throw unauthorized();
      record.user = user.name;
      if (record.verb === "deletecollection" || record.verb === "unknown")
        throw methodNotAllowed(`the server does not allow this method on the requested resource`);
      const response = await this.serve(req, route, record.verb, user, url.searchParams, server, record);
      // A watch answered with an ERROR event has already recorded its 410.
      record.code ||= response.status;
      return response;
    } catch (e) {
      const err =
        e instanceof ApiError
          ? e
          : new ApiError({
              kind: "Status",
              apiVersion: "v1",
              metadata: {},
              status: "Failure",
              reason: "InternalError",
              code: 500,
              message: `Internal error occurred: ${(e as Error).message}`,
            });
      record.code = err.code;
      return json(err.code, err.status, err.retryAfterSeconds !== undefined ? { "Retry-After": String(err.retryAfterSeconds) } : {});
    } finally {
      if (record.resource) this.requests.push(record);
    }
  }

  private takeFault(r: RequestRecord): Fault | undefined {
    const f = this.faults.find((f) => Object.entries(f.match).every(([k, v]) => v === undefined || r[k as keyof RequestRecord] === v));
    if (f && --f.times <= 0) this.faults.splice(this.faults.indexOf(f), 1);
    return f;
  }

  private async serve(
    req: Request,
    route: Route,
    verb: Verb,
    user: User,
    q: URLSearchParams,
    server: { timeout(req: Request, s: number): void },
    record: RequestRecord,
  ): Promise<Response> {
    const { def, namespace, subresource } = route;
    const registry = this.o.registry;
    const fault = this.takeFault(record);
    if (fault && verb === "watch" && fault.code === 410) {
      record.code = 410;
      return expiredWatch(injected(410, target(def)));
    }
    if (fault) throw injected(fault.code, target(def, route.name), fault.retryAfterSeconds);

    const body = ["POST", "PUT", "PATCH", "DELETE"].includes(req.method) ? await readBody(req) : undefined;
    const fieldSelector = q.get("fieldSelector") ?? "";
    const fields = parseFieldSelector(def, fieldSelector);
    const nodeNameSelector = fields.terms.find((t) => t.field === "spec.nodeName" && t.op === "=")?.value;
    // RequestInfoFactory: a list or watch without a name in its path takes the one its field selector
    // requires (metadata.name=x), which is what lets the Node authorizer allow a single-object watch.
    const selectedName = verb === "list" || verb === "watch" ? fields.terms.find((t) => t.field === "metadata.name" && t.op === "=")?.value : undefined;
    const attrs = { user, verb, def, subresource, namespace, name: route.name ?? selectedName, nodeNameSelector };

    switch (verb) {
      case "list":
      case "watch": {
        authorize(attrs, registry);
        const labels = parseLabelSelector(q.get("labelSelector") ?? "");
        // GET /watch/.../pods/<name> watches one object.
        const match = (o: AnyObject) => fields.match(o) && labels(o) && (route.name === undefined || o.metadata?.name === route.name);
        if (verb === "watch") return this.watch(req, def, namespace, match, q, server, record);
        const items = registry
          .list(def.key, namespace)
          .filter(match)
          .sort(byKey)
          .map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
        return json(200, { kind: `${def.kind}List`, apiVersion: apiVersionOf(def), metadata: { resourceVersion: String(registry.resourceVersion) }, items });
      }
      case "get": {
        authorize(attrs, registry);
        const o = registry.get(def.key, namespace, route.name!);
        if (!o) throw notFound(target(def, route.name));
        return json(200, o);
      }
      case "create": {
        if (!isPlainObject(body)) throw badRequest("the body of the request is not a JSON object");
        if (subresource === "binding" || def.key === "bindings") {
          const podName = subresource === "binding" ? route.name! : ((body as AnyObject).metadata?.name ?? "");
          if (subresource === "binding" && body.metadata && (body as AnyObject).metadata?.name && (body as AnyObject).metadata?.name !== podName) {
            throw badRequest(`binding name ${(body as AnyObject).metadata?.name} does not match the pod name ${podName}`);
          }
          authorize({ ...attrs, name: podName }, registry);
          registry.bind(namespace ?? "default", podName, body as never);
          return json(201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
        }
        authorize({ ...attrs, body: body as AnyObject }, registry);
        if (def.key === "tokenreviews") return json(201, tokenReview(body, this.o.users));
        if (def.key === "subjectaccessreviews") return json(201, subjectAccessReview(body, this.o.accessPolicy()));
        if (subresource === "token") return json(201, createToken(registry, this.o.tokenIssuer, namespace ?? "default", route.name!, body, this.o.now()));
        if (def.key === "certificatesigningrequests") {
          const created = registry.create(def.key, prepareCsrCreate(body as AnyObject, user), namespace);
          this.o.certificates?.kick();
          return json(201, created);
        }
        return json(201, registry.create(def.key, body as AnyObject, namespace));
      }
      case "update": {
        if (!isPlainObject(body)) throw badRequest("the body of the request is not a JSON object");
        authorize({ ...attrs, body: body as AnyObject }, registry);
        const updated = registry.update(def.key, body as AnyObject, subresource, route.name, namespace);
        if (def.key === "certificatesigningrequests") this.o.certificates?.kick();
        return json(200, updated);
      }
      case "patch": {
        authorize(attrs, registry);
        const type = (req.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
        return json(200, registry.patch(def.key, namespace, route.name!, type, body, subresource));
      }
      case "delete": {
        authorize(attrs, registry);
        const opts: DeleteOptions = isPlainObject(body) ? (body as DeleteOptions) : {};
        const grace = q.get("gracePeriodSeconds");
        return json(200, registry.delete(def.key, namespace, route.name!, grace !== null ? { ...opts, gracePeriodSeconds: Number(grace) } : opts));
      }
    }
  }

  /**
   * A watch stream: history after `resourceVersion` (or synthetic ADDED for "" and "0"), then live
   * events, BOOKMARKs when asked for, ended by `timeoutSeconds`, dropWatches() or the client.
   * A resourceVersion older than the kept history is answered 200 with one ERROR event (410 Expired).
   */
  private watch(
    req: Request,
    def: ResourceDef,
    namespace: string | undefined,
    match: (o: AnyObject) => boolean,
    q: URLSearchParams,
    server: { timeout(req: Request, s: number): void },
    record: RequestRecord,
  ): Response {
    const rvParam = q.get("resourceVersion") ?? "";
    const from = rvParam === "" || rvParam === "0" ? undefined : Number(rvParam);
    if (from !== undefined && !Number.isSafeInteger(from)) throw badRequest(`invalid resource version: ${rvParam}`);
    server.timeout(req, 0);
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const timers: Array<ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>> = [];
    let unwatch = () => {};
    let open = true;
    const close = () => {
      if (!open) return;
      open = false;
      unwatch();
      timers.forEach((t) => clearTimeout(t));
      this.openWatches.delete(close);
      try {
        controller.close();
      } catch {}
    };
    let sent = false;
    const send = (type: string, object: unknown) => {
      if (open) controller.enqueue(encoder.encode(JSON.stringify({ type, object }) + "\n"));
      sent = true;
    };
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
      cancel: () => close(),
    });
    try {
      unwatch = this.o.registry.watch({ resource: def.key, namespace, match, from, send });
    } catch (e) {
      if (e instanceof ApiError && e.code === 410) {
        record.code = 410;
        return expiredWatch(e);
      }
      throw e;
    }
    // Bun.serve sends the status line and headers with the first body bytes; the apiserver sends them at
    // once. A watch with nothing to replay gets one newline (whitespace between JSON values, which every
    // watch decoder skips) so the client's request completes now, not at the first event.
    if (!sent) controller.enqueue(encoder.encode("\n"));
    this.openWatches.set(close, record);
    req.signal.addEventListener("abort", close, { once: true });
    const timeoutSeconds = Number(q.get("timeoutSeconds") ?? "0");
    if (timeoutSeconds > 0) timers.push(setTimeout(close, timeoutSeconds * 1000));
    if (q.get("allowWatchBookmarks") === "true") {
      const bookmark = () =>
        send("BOOKMARK", { kind: def.kind, apiVersion: apiVersionOf(def), metadata: { resourceVersion: String(this.o.registry.resourceVersion) } });
      timers.push(setInterval(bookmark, this.o.bookmarkIntervalMs));
    }
    return new Response(stream, { status: 200, headers: JSON_HEADERS });
  }
}

/** How the apiserver reports an expired resourceVersion on a watch: HTTP 200, one ERROR event, end. */
function expiredWatch(err: ApiError): Response {
  return new Response(JSON.stringify({ type: "ERROR", object: err.status }) + "\n", { status: 200, headers: JSON_HEADERS });
}

function json(code: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status: code, headers: { ...JSON_HEADERS, "Audit-Id": crypto.randomUUID(), ...headers } });
}

const byKey = (a: AnyObject, b: AnyObject) => {
  const ka = `${a.metadata?.namespace ?? ""}/${a.metadata?.name ?? ""}`;
  const kb = `${b.metadata?.namespace ?? ""}/${b.metadata?.name ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

async function readBody(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`json parse error: ${(e as Error).message}`);
  }
}

/** /api/v1/... or /apis/<group>/<version>/..., optionally /watch/..., namespaced or not. */
function parseRoute(pathname: string): Route {
  const parts = pathname.split("/").filter(Boolean);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 3) [group, version, rest] = ["", parts[1]!, parts.slice(2)];
  else if (parts[0] === "apis" && parts.length >= 4) [group, version, rest] = [parts[1]!, parts[2]!, parts.slice(3)];
  else throw notFoundPath();
  const watchPath = rest[0] === "watch";
  if (watchPath) rest = rest.slice(1);
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource, ...extra] = rest;
  const def = plural ? resourceByPath(group, version, plural) : undefined;
  if (!def || extra.length || (subresource && !def.subresources.includes(subresource)) || (namespace !== undefined && !def.namespaced)) throw notFoundPath();
  return { def, namespace, name, subresource, watchPath };
}

function verbOf(method: string, route: Route, q: URLSearchParams): RequestRecord["verb"] {
  const named = route.name !== undefined;
  switch (method) {
    case "GET":
      if (route.watchPath || q.get("watch") === "true" || q.get("watch") === "1") return "watch";
      return named ? "get" : "list";
    case "POST":
      return route.subresource === "binding" || route.subresource === "token" || !named ? "create" : "unknown";
    case "PUT":
      return named ? "update" : "unknown";
    case "PATCH":
      return named ? "patch" : "unknown";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "unknown";
  }
}
