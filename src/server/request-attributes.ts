// What a request to the agent's API asks to do, in the terms an authorizer understands: the kubelet's
// nodeAuthorizerAttributesGetter (k/k 1.24 pkg/kubelet/server/auth.go). Every request is an action on
// the Node object of this node: resource "nodes", name = the node's name, apiVersion v1, the verb from
// the HTTP method, and a subresource from the path, so RBAC can grant "read the metrics of nodes"
// without "exec into every pod of the node" (which is nodes/proxy):
//   /stats, /stats/…     stats
//   /metrics, /metrics/… metrics
//   /logs, /logs/…       log     (the node's log files; a container's logs, /containerLogs, are proxy)
//   /spec, /spec/…       spec
//   anything else        proxy   (/pods, /healthz, /node, /containerLogs, /exec, /run, /configz, …)
// Verbs: POST create, GET get, PUT update, PATCH patch, DELETE delete, and any other method (HEAD
// included) the empty verb, exactly as the kubelet's switch has it; a SubjectAccessReview with an empty
// verb is allowed only by a rule for every verb ("*").

/** The authenticated caller, as authentication.k8s.io/v1 UserInfo spells it. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** authorizer.AttributesRecord of a kubelet API request. */
export interface RequestAttributes {
  user: UserInfo;
  verb: string;
  namespace: "";
  apiGroup: "";
  apiVersion: "v1";
  resource: "nodes";
  subresource: string;
  name: string;
  /** The request's path, for the log. */
  path: string;
}

const VERBS: Readonly<Record<string, string>> = { POST: "create", GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** The kubelet's isSubpath: `path` is `prefix` (a trailing "/" ignored), or below it at a "/" boundary. */
export function isSubpath(path: string, prefix: string): boolean {
  const p = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return path === p || (path.startsWith(p) && path[p.length] === "/");
}

/** The subresources of nodes the kubelet's API is authorized as. */
export type Subresource = "proxy" | "stats" | "metrics" | "log" | "spec";

const SUBRESOURCES: ReadonlyArray<[string, Subresource]> = [
  ["/stats/", "stats"],
  ["/metrics", "metrics"],
  ["/logs/", "log"],
  ["/spec/", "spec"],
];

/** The verb an HTTP method stands for ("" for any method the kubelet does not map, HEAD included). */
export function apiVerb(method: string): string {
  return VERBS[method.toUpperCase()] ?? "";
}

/** The subresource of nodes a path belongs to. */
export function subresourceOf(path: string): string {
  for (const [prefix, sub] of SUBRESOURCES) if (isSubpath(path, prefix)) return sub;
  return "proxy";
}

/** `subresource`: the route's (route-table.ts), which for every route is what the prefix rule gives. */
export function requestAttributes(
  nodeName: string,
  user: UserInfo,
  method: string,
  path: string,
  subresource: string = subresourceOf(path),
): RequestAttributes {
  return { user, verb: apiVerb(method), namespace: "", apiGroup: "", apiVersion: "v1", resource: "nodes", subresource, name: nodeName, path };
}
