// The API clients the agent and the scheduler use, made from a kubeconfig by @kubernetes/client-node.
// Kubeconfig parsing, contexts, tokens, exec/OIDC plugins and request building stay the library's; only
// the transport is ours. Why: client-node sends through undici with a `dispatcher` that carries the
// cluster's CA and client certificate, and Bun's fetch ignores `dispatcher` — every TLS call to a real
// API server failed with UNABLE_TO_VERIFY_LEAF_SIGNATURE. Bun's fetch takes the same settings as its
// own `tls` option, so the transport hands them over there, for requests and for watches alike.
import * as k8s from "@kubernetes/client-node";
import type { HttpLibrary, RequestContext } from "@kubernetes/client-node";
import { type Clock, errorMessage, type Logger, RealClock } from "../util";
import { type RateLimit, TokenBucket, throttledFetch } from "./rate-limiter";
import { ApiRequestCounts, countedFetch } from "./request-counts";
import pkg from "../../package.json" with { type: "json" };

export interface KubeClientOptions {
  /** kubeconfig context to use instead of current-context. */
  context?: string;
  /** User-Agent sent with every call, e.g. "nodeagent/0.1.0 (agent)". */
  userAgent?: string;
  /** Where the client counts its requests (shared with other clients); a new ApiRequestCounts of its own by default. */
  requests?: ApiRequestCounts;
  /**
   * The client-side rate limit every request waits on (the kubelet's kubeAPIQPS and kubeAPIBurst, as
   * client-go's QPS and Burst): one token bucket for the whole client — generated clients,
   * getJson/postJson, watch starts, each retry. Unset: no limit.
   */
  rateLimit?: RateLimit;
  /** The rate limiter's clock (a FakeClock in tests); RealClock by default. */
  clock?: Clock;
  /** Where long throttling waits are logged (debug). */
  log?: Logger;
}

export interface KubeClient {
  readonly config: k8s.KubeConfig;
  /** The API server's URL, for messages. */
  readonly server: string;
  /** Every request this client sent, by verb, resource and answer (nodeagent_api_requests_total). */
  readonly requests: ApiRequestCounts;
  readonly core: k8s.CoreV1Api;
  readonly coordination: k8s.CoordinationV1Api;
  readonly events: k8s.EventsV1Api;
  /** Watches for informers, over the same transport. */
  readonly watch: k8s.Watch;
  /**
   * GET of a path, the JSON as the server sent it. Informers list through this: the generated clients
   * turn timestamps into Date objects while watch events keep the API's strings, and a cache mixing the
   * two would see a change where there is none.
   */
  getJson<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  /**
   * POST of a JSON object to a path, the JSON answer: the create-only review APIs (TokenReview,
   * SubjectAccessReview) the agent's API server asks, which the generated clients would reshape.
   */
  postJson<T>(path: string, body: unknown): Promise<T>;
  /**
   * Reads the kubeconfig's client certificate and key files again and uses them from the next request
   * on (requests, watches and the generated clients share one TLS setting): the certificate manager
   * calls this after rotating the client certificate, whose -current.pem path the kubeconfig names.
   */
  reloadCredentials(): Promise<void>;
  /**
   * This client (kubeconfig, TLS, credentials, request counts) with another rate limit, or none: the
   * kubelet's separate clients — its heartbeat client (Lease and node status) is not throttled, its
   * event client has eventRecordQPS/eventBurst of its own.
   */
  withRateLimit(rateLimit: RateLimit | undefined): KubeClient;
}

/** TLS settings of the current cluster and user, in the shape Bun's fetch takes them. */
interface BunTls {
  ca?: string | string[];
  cert?: string;
  key?: string;
  rejectUnauthorized?: boolean;
  serverName?: string;
}

/** Loads a kubeconfig file (relative paths in it resolve against its folder, as kubectl does). */
export async function loadKubeClient(path: string, opts: KubeClientOptions = {}): Promise<KubeClient> {
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (e) {
    throw new Error(`kubeconfig ${path}: ${errorMessage(e)}`);
  }
  return kubeClientFromConfig(kc, opts, path);
}

export async function kubeClientFromConfig(kc: k8s.KubeConfig, opts: KubeClientOptions = {}, origin = "kubeconfig"): Promise<KubeClient> {
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) throw new Error(`${origin}: no context named ${JSON.stringify(opts.context)}`);
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${origin}: no current cluster (set current-context, or pass a context)`);
  if (!/^https?:\/\//.test(cluster.server))
    throw new Error(`${origin}: cluster ${cluster.name} has server ${JSON.stringify(cluster.server)}, want an http(s) URL`);
  const tls = await bunTls(kc);
  const userAgent = opts.userAgent ?? `nodeagent/${pkg.version}`;
  // The one place every request goes through, counted (and throttled, with a rate limit).
  const requests = opts.requests ?? new ApiRequestCounts();
  const counted = countedFetch(requests);
  const server = cluster.server.replace(/\/+$/, "");
  const clock = opts.clock ?? new RealClock();
  const build = (rateLimit: RateLimit | undefined): KubeClient => {
    const send = rateLimit
      ? throttledFetch(
          counted,
          new TokenBucket(rateLimit, clock),
          (ms) => requests.recordThrottle(ms),
          (msg, fields) => opts.log?.debug(msg, fields),
        )
      : counted;
    const configuration = k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(server, {}),
      authMethods: { default: kc },
      httpApi: new BunFetchHttpLibrary(tls, userAgent, cluster.proxyUrl, send),
    });
    const sendJson = async <T>(method: "GET" | "POST", path: string, query: Record<string, string | undefined>, body?: unknown): Promise<T> => {
      const url = new URL(server + path);
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") url.searchParams.set(k, v);
      const ctx = new k8s.RequestContext(url.toString(), method === "GET" ? k8s.HttpMethod.GET : k8s.HttpMethod.POST);
      await kc.applySecurityAuthentication(ctx);
      const headers: Record<string, string> = {
        "User-Agent": userAgent,
        Accept: "application/json",
        ...ctx.getHeaders(),
        ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
      };
      const init: BunRequestInit = { method, headers, tls, proxy: cluster.proxyUrl, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
      const resp = await fetchRetryingAfter(url, init, undefined, send);
      const text = await resp.text();
      if (resp.status < 200 || resp.status > 299) {
        const h: Record<string, string> = {};
        resp.headers.forEach((value, name) => (h[name] = value));
        throw new k8s.ApiException(resp.status, `${method} ${path}: HTTP ${resp.status}`, text, h);
      }
      return JSON.parse(text) as T;
    };
    return {
      getJson: <T>(path: string, query: Record<string, string | undefined> = {}): Promise<T> => sendJson<T>("GET", path, query),
      postJson: <T>(path: string, body: unknown): Promise<T> => sendJson<T>("POST", path, {}, body),
      // In place: every sender (of every client derived with withRateLimit) holds this same object.
      reloadCredentials: async () => void Object.assign(tls, await bunTls(kc)),
      withRateLimit: build,
      config: kc,
      server: cluster.server,
      requests,
      core: new k8s.CoreV1Api(configuration),
      coordination: new k8s.CoordinationV1Api(configuration),
      events: new k8s.EventsV1Api(configuration),
      watch: new BunWatch(kc, tls, userAgent, cluster.proxyUrl, send),
    };
  };
  return build(opts.rateLimit);
}

/** Reads the CA, client certificate and verification setting client-node worked out for this context. */
async function bunTls(kc: k8s.KubeConfig): Promise<BunTls> {
  const o: { ca?: Buffer | string; cert?: Buffer | string; key?: Buffer | string; rejectUnauthorized?: boolean; servername?: string } = {};
  await kc.applyToHTTPSOptions(o as Parameters<k8s.KubeConfig["applyToHTTPSOptions"]>[0]);
  const text = (v: Buffer | string | undefined) => (v === undefined ? undefined : v.toString());
  return { ca: text(o.ca), cert: text(o.cert), key: text(o.key), rejectUnauthorized: o.rejectUnauthorized, serverName: o.servername };
}

type BunRequestInit = RequestInit & { tls?: BunTls; proxy?: string };

/** client-go's RESTClient default: a request answered "wait and retry" is retried at most 10 times. */
export const MAX_RETRY_AFTER_RETRIES = 10;

/**
 * The seconds to wait before trying again, when the answer asks for it: client-go's checkWait — a 429,
 * or any 5xx, with a Retry-After header of whole seconds. The API server sends one with the 429s of its
 * max-in-flight and priority-and-fairness limits; treating those as failures turns load into more load
 * (a scheduler's binding failure is a status patch and an event more).
 */
export function retryAfterSeconds(status: number, retryAfter: string | null): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  if (retryAfter === null || !/^\d+$/.test(retryAfter.trim())) return undefined;
  return Number(retryAfter.trim());
}

/**
 * fetch, retried as client-go retries: while the answer says "try again after N s" (retryAfterSeconds),
 * up to MAX_RETRY_AFTER_RETRIES times; the request's own signal cuts the wait short. Bodies here are
 * strings or absent, so a request can be sent again as it is.
 */
export async function fetchRetryingAfter(
  url: string | URL,
  init: BunRequestInit,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void> = abortableSleep,
  send: (url: string | URL, init: BunRequestInit) => Promise<Response> = fetch,
): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const resp = await send(url, init);
    const wait = attempt < MAX_RETRY_AFTER_RETRIES ? retryAfterSeconds(resp.status, resp.headers.get("Retry-After")) : undefined;
    if (wait === undefined) return resp;
    await resp.arrayBuffer().catch(() => undefined);
    await sleep(wait * 1000, init.signal ?? undefined);
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The generated clients' HTTP layer, on Bun's fetch. Auth headers are already on the request. */
class BunFetchHttpLibrary implements HttpLibrary {
  constructor(
    private readonly tls: BunTls,
    private readonly userAgent: string,
    private readonly proxy: string | undefined,
    private readonly fetch: (url: string | URL, init: BunRequestInit) => Promise<Response>,
  ) {}

  send(request: RequestContext): k8s.Observable<k8s.ResponseContext> {
    const headers = { "User-Agent": this.userAgent, ...request.getHeaders() };
    const init: BunRequestInit = {
      method: request.getHttpMethod().toString(),
      body: request.getBody() as RequestInit["body"],
      headers,
      signal: request.getSignal(),
      tls: this.tls,
      proxy: this.proxy,
    };
    const response = fetchRetryingAfter(request.getUrl(), init, undefined, this.fetch).then((resp) => {
      const h: Record<string, string> = {};
      resp.headers.forEach((value, name) => (h[name] = value));
      return new k8s.ResponseContext(resp.status, h, {
        text: () => resp.text(),
        binary: async () => Buffer.from(await resp.arrayBuffer()),
        stream: () => resp.body as unknown as ReturnType<k8s.ResponseBody["stream"]>,
      });
    });
    return new k8s.Observable(response);
  }
}

/** client-go's reflector asks for a watch timeout between 5 and 10 minutes so watches are renewed. */
const MIN_WATCH_TIMEOUT_S = 300;

/**
 * client-node's Watch (the protocol ListWatch drives: one JSON event a line, `done` once), on Bun's
 * fetch. Like client-go's reflector it asks for bookmarks and a server-side timeout of 5–10 minutes, and
 * gives up on a connection that has been silent longer than that (a half-open TCP connection to a
 * server that went away would otherwise be waited on forever).
 */
class BunWatch extends k8s.Watch {
  constructor(
    config: k8s.KubeConfig,
    private readonly tls: BunTls,
    private readonly userAgent: string,
    private readonly proxy: string | undefined,
    private readonly send: (url: string | URL, init: BunRequestInit) => Promise<Response>,
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: any, watchObj?: any) => void,
    done: (err: any) => void,
  ): Promise<AbortController> {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new Error("No currently active cluster");
    const url = new URL(cluster.server.replace(/\/+$/, "") + path);
    const timeoutSeconds = MIN_WATCH_TIMEOUT_S + Math.floor(Math.random() * MIN_WATCH_TIMEOUT_S);
    url.searchParams.set("watch", "true");
    url.searchParams.set("allowWatchBookmarks", "true");
    url.searchParams.set("timeoutSeconds", String(timeoutSeconds));
    for (const [k, v] of Object.entries(queryParams ?? {})) if (v !== undefined && v !== "") url.searchParams.set(k, String(v));

    const controller = new AbortController();
    let finished = false;
    let silentTimer: ReturnType<typeof setTimeout> | undefined;
    const finish = (err: unknown) => {
      if (finished) return;
      finished = true;
      if (silentTimer) clearTimeout(silentTimer);
      controller.abort();
      done(err ?? null);
    };
    const armSilence = () => {
      if (silentTimer) clearTimeout(silentTimer);
      silentTimer = setTimeout(
        () => finish(Object.assign(new Error(`watch ${path}: no data for ${timeoutSeconds + 30}s`), { name: "TimeoutError" })),
        (timeoutSeconds + 30) * 1000,
      );
      silentTimer.unref?.();
    };

    const ctx = new k8s.RequestContext(url.toString(), k8s.HttpMethod.GET);
    await this.config.applySecurityAuthentication(ctx);
    const init: BunRequestInit = {
      headers: { "User-Agent": this.userAgent, ...ctx.getHeaders() },
      signal: controller.signal,
      tls: this.tls,
      proxy: this.proxy,
    };
    void (async () => {
      try {
        armSilence();
        const resp = await this.send(url, init);
        if (resp.status !== 200) {
          const body = await resp.text().catch(() => "");
          let message = resp.statusText || `HTTP ${resp.status}`;
          try {
            message = (JSON.parse(body) as { message?: string }).message ?? message;
          } catch {}
          throw Object.assign(new Error(message), { statusCode: resp.status });
        }
        if (!resp.body) return finish(null);
        const decoder = new TextDecoder();
        let buffered = "";
        for await (const chunk of resp.body) {
          armSilence();
          buffered += decoder.decode(chunk, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf("\n")) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (!line) continue;
            let event: { type: string; object: unknown };
            try {
              event = JSON.parse(line);
            } catch {
              continue;
            }
            callback(event.type, event.object, event);
          }
        }
        finish(null);
      } catch (err) {
        // Our own abort (stop, or a new watch replacing this one) is not an error.
        finish(finished || (controller.signal.aborted && !(err as Error)?.name?.includes("Timeout")) ? null : err);
      }
    })();
    return controller;
  }
}
