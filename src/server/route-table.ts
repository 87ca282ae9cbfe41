// The agent's API as one table: every route's path, the methods it answers, and the subresource of
// nodes the auth filter (auth.ts) authorizes its requests as (request-attributes.ts). The handlers are
// keyed by the route's name in server.ts, whose type requires one for every row; a path no row serves
// is authorized by the kubelet's prefix rule alone and answered 404 after the filter.
import { subresourceOf, type Subresource } from "./request-attributes";
import { isStreamPath } from "./streaming";

export type RouteName =
  | "healthz"
  | "healthzCheck"
  | "containerLogs"
  | "stream"
  | "configz"
  | "debugHeap"
  | "pods"
  | "pod"
  | "events"
  | "node"
  | "metrics"
  | "statsSummary"
  | "resourceMetrics";

export interface Route {
  name: RouteName;
  /** The path as documentation shows it. */
  pattern: string;
  /** A path this route serves: the test checks that the filter authorizes it as `subresource`. */
  example: string;
  /** Whether `path` (split at "/" into `segments`, the leading "" dropped) is this route's. */
  match: (path: string, segments: readonly string[]) => boolean;
  /**
   * The methods answered, GET with HEAD; any other is 405 with the list in Allow. Undefined: the
   * handler answers every method itself (its own 405 and messages).
   */
  methods?: readonly ("GET" | "POST" | "DELETE")[];
  /** What the auth filter authorizes a request to this route as: nodes/<subresource>. */
  subresource: Subresource;
}

const exact = (p: string) => (path: string) => path === p;

export const ROUTES: readonly Route[] = [
  { name: "healthz", pattern: "/healthz", example: "/healthz", match: exact("/healthz"), methods: ["GET"], subresource: "proxy" },
  {
    name: "healthzCheck",
    pattern: "/healthz/{check}",
    example: "/healthz/syncloop",
    match: (_, s) => s[0] === "healthz" && s.length === 2 && !!s[1],
    methods: ["GET"],
    subresource: "proxy",
  },
  {
    name: "containerLogs",
    pattern: "/containerLogs/{namespace}/{pod}/{container}",
    example: "/containerLogs/ns/p/c",
    match: (_, s) => s[0] === "containerLogs",
    subresource: "proxy",
  },
  { name: "stream", pattern: "/{exec,attach,portForward,run}/…", example: "/exec/ns/p/c", match: (path) => isStreamPath(path), subresource: "proxy" },
  { name: "configz", pattern: "/configz", example: "/configz", match: exact("/configz"), methods: ["GET"], subresource: "proxy" },
  { name: "debugHeap", pattern: "/debug/heap", example: "/debug/heap", match: exact("/debug/heap"), methods: ["GET"], subresource: "proxy" },
  { name: "pods", pattern: "/pods", example: "/pods", match: exact("/pods"), methods: ["GET", "POST"], subresource: "proxy" },
  {
    name: "pod",
    pattern: "/pods/{namespace}/{name}",
    example: "/pods/ns/p",
    match: (_, s) => s[0] === "pods" && s.length === 3 && !!s[1] && !!s[2],
    methods: ["GET", "DELETE"],
    subresource: "proxy",
  },
  // The kubelet has no /events (its events go to the API server): authorized as /pods are.
  { name: "events", pattern: "/events", example: "/events", match: exact("/events"), methods: ["GET"], subresource: "proxy" },
  { name: "node", pattern: "/node", example: "/node", match: exact("/node"), methods: ["GET"], subresource: "proxy" },
  { name: "metrics", pattern: "/metrics", example: "/metrics", match: exact("/metrics"), methods: ["GET"], subresource: "metrics" },
  { name: "statsSummary", pattern: "/stats/summary", example: "/stats/summary", match: exact("/stats/summary"), methods: ["GET"], subresource: "stats" },
  {
    name: "resourceMetrics",
    pattern: "/metrics/resource",
    example: "/metrics/resource",
    match: exact("/metrics/resource"),
    methods: ["GET"],
    subresource: "metrics",
  },
];

/** The route that serves `path`, if any (the rows' paths do not overlap). */
export function findRoute(path: string): Route | undefined {
  const segments = path.split("/").slice(1);
  return ROUTES.find((r) => r.match(path, segments));
}

/**
 * The subresource the auth filter authorizes `path` as: its route's, or, for a path no route
 * serves, the kubelet's prefix rule (so /logs/… is nodes/log and an unknown path nodes/proxy).
 */
export function routeSubresource(path: string): string {
  return findRoute(path)?.subresource ?? subresourceOf(path);
}

/** The Allow list of a route's 405: GET brings HEAD. */
export function allowedMethods(route: Route): string[] {
  return (route.methods ?? []).flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]));
}

/** Whether `method` (HEAD already read as GET) is one the route answers. */
export function routeAllows(route: Route, method: string): boolean {
  return route.methods === undefined || (route.methods as readonly string[]).includes(method);
}
