// ApiRequestCounts: the requests a client made of the API server, by verb, resource and answer — what
// the agent shows as nodeagent_api_requests_total (the kubelet's analogue is client-go's
// rest_client_requests_total{code,method,host}; here the verb and resource the API server's own
// request info names, so that a Lease renewal and a pod status PATCH are told apart). Counted in one
// place, the transport (client.ts: the generated clients, getJson/postJson and watches), once per
// request sent: a request retried after a 429 counts each time, as the API server saw it each time.
//
// Each client keeps its own counts unless it is given one to share: a process running many nodes
// gives each node's client its own and sums them (or labels them by node) when it renders them.

/** The API server's verbs (its RequestInfo): get, list, watch, create, update, patch, delete, deletecollection. */
export type ApiRequestVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface ApiRequestCount {
  verb: ApiRequestVerb | "unknown";
  /** The resource with its subresource: pods, pods/status, nodes/status, leases, events, …; the path of a non-resource URL. */
  resource: string;
  /** The HTTP status answered, or "<error>" when none came (client-go's label for a failed request). */
  code: string;
  count: number;
}

export class ApiRequestCounts {
  private readonly series = new Map<string, ApiRequestCount>();
  private throttledMs = 0;

  /** A request waited `ms` for the client's rate limiter (kubeAPIQPS) before it was sent. */
  recordThrottle(ms: number): void {
    this.throttledMs += ms;
  }

  /** Seconds the client's requests have waited for its rate limiter, summed (nodeagent_api_throttle_seconds_total). */
  throttleSeconds(): number {
    return this.throttledMs / 1000;
  }

  /** One request sent, answered `code` (an HTTP status, or "<error>"). */
  record(verb: ApiRequestCount["verb"], resource: string, code: string): void {
    const key = `${verb} ${resource} ${code}`;
    const s = this.series.get(key);
    if (s) s.count++;
    else this.series.set(key, { verb, resource, code, count: 1 });
  }

  /** Every series so far (copies), in the order they first appeared. */
  snapshot(): ApiRequestCount[] {
    return [...this.series.values()].map((s) => ({ ...s }));
  }

  /** Requests matching every given label, summed. */
  total(match: Partial<Omit<ApiRequestCount, "count">> = {}): number {
    let n = 0;
    for (const s of this.series.values()) {
      if (
        (match.verb === undefined || s.verb === match.verb) &&
        (match.resource === undefined || s.resource === match.resource) &&
        (match.code === undefined || s.code === match.code)
      )
        n += s.count;
    }
    return n;
  }
}

/**
 * The verb and resource of a request, as the API server's RequestInfo resolver reads them from the
 * method and the path: /api/v1/… and /apis/<group>/<version>/…, namespaced or not; GET of a collection
 * is list, or watch with watch=true; DELETE of a collection is deletecollection.
 */
export function apiRequestAttributes(method: string, url: URL): { verb: ApiRequestCount["verb"]; resource: string } {
  const parts = url.pathname.split("/").filter((p) => p !== "");
  let rest: string[] | undefined;
  if (parts[0] === "api" && parts.length >= 2) rest = parts.slice(2);
  else if (parts[0] === "apis" && parts.length >= 3) rest = parts.slice(3);
  if (!rest || rest.length === 0) return { verb: verbOf(method, false, url), resource: url.pathname };
  // namespaces/<ns>/<resource>/…, except the namespace object itself (namespaces/<ns>[/<sub>]).
  if (rest[0] === "namespaces" && rest.length >= 3) rest = rest.slice(2);
  const [resource, name, sub] = rest;
  return { verb: verbOf(method, name !== undefined, url), resource: sub ? `${resource}/${sub}` : (resource ?? "") };
}

function verbOf(method: string, named: boolean, url: URL): ApiRequestCount["verb"] {
  switch (method.toUpperCase()) {
    case "GET":
      if (named) return "get";
      return url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1" ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return "unknown";
  }
}

/** fetch, each request counted in `counts` by its verb, resource and answer. */
export function countedFetch(counts: ApiRequestCounts): (url: string | URL, init: RequestInit) => Promise<Response> {
  return async (url, init) => {
    const u = typeof url === "string" ? new URL(url) : url;
    const { verb, resource } = apiRequestAttributes(init.method ?? "GET", u);
    let resp: Response;
    try {
      resp = await fetch(u, init);
    } catch (err) {
      counts.record(verb, resource, "<error>");
      throw err;
    }
    counts.record(verb, resource, String(resp.status));
    return resp;
  };
}
