// The gate every request to the agent's API passes before routing, /healthz included: the kubelet's
// auth filter (k/k 1.24 pkg/kubelet/server/server.go InstallAuthFilter), authentication (authn.ts)
// then authorization (authz.ts) of the request's attributes (request-attributes.ts), the subresource
// taken from the route table (route-table.ts) that routing uses too. The kubelet
// authenticates before it looks at the path, so an unknown path needs credentials too.
//   a credential that is not valid, or none (and no --anonymous-auth)
//                         401, body "Unauthorized" (plain text, as the kubelet's WriteErrorString)
//   the authorizer could not decide (the API server did not answer)
//                         500 "Authorization error (user=U, verb=V, resource=nodes, subresource=S)"
//   not allowed           403 "Forbidden (user=U, verb=V, resource=nodes, subresource=S)"
//   allowed               routed, with the caller's user.
// One nodeagent opt-in sits beside it: --anonymous-read-only lets a caller without credentials (or
// system:anonymous when --anonymous-auth is on but the authorizer refuses it) GET what the kubelet's
// read-only port 10255 served, with pods redacted (redact.ts). Writes never pass that way.
import { isIP } from "node:net";
import { ANONYMOUS_USER, AuthenticationError, type Authenticator, type AuthnRequest } from "./authn";
import type { Authorizer } from "./authz";
import { requestAttributes, type UserInfo } from "./request-attributes";
import { routeSubresource } from "./route-table";

export { tokenMatches } from "./authn";

/** Who a request was let in as; `redacted` for the anonymous read-only view. */
export interface Caller {
  user: UserInfo;
  redacted: boolean;
}

/** Why a request was refused: the status, the kubelet's plain-text body, and for the log the reason. */
export interface AuthRefusal {
  code: 401 | 403 | 500;
  body: string;
  reason: string;
}

export interface AuthGateOptions {
  nodeName: string;
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** --anonymous-read-only: GET/HEAD without credentials see the redacted view. */
  anonymousReadOnly?: boolean;
}

/** GET and HEAD: the methods the anonymous read-only view answers. */
export function isRead(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

export function isRefusal(x: Caller | AuthRefusal): x is AuthRefusal {
  return "code" in x;
}

export const UNAUTHORIZED_BODY = "Unauthorized";

function describe(user: string, verb: string, subresource: string): string {
  return `(user=${user}, verb=${verb}, resource=nodes, subresource=${subresource})`;
}

/** The gate: the caller to route the request for, or the refusal to answer with. */
export async function checkRequest(o: AuthGateOptions, method: string, path: string, credentials: AuthnRequest): Promise<Caller | AuthRefusal> {
  const readOnlyView = o.anonymousReadOnly && isRead(method);
  let user: UserInfo | undefined;
  try {
    user = await o.authenticator.authenticate(credentials);
  } catch (e) {
    const reason = e instanceof AuthenticationError ? e.message : `authentication failed: ${String(e)}`;
    return { code: 401, body: UNAUTHORIZED_BODY, reason };
  }
  if (!user) {
    if (readOnlyView) return { user: ANONYMOUS_USER, redacted: true };
    return {
      code: 401,
      body: UNAUTHORIZED_BODY,
      reason: credentials.authorization === null && !credentials.peer ? "no credentials" : "no credential accepted",
    };
  }
  // Authorized as the route table says the path's route is (the kubelet's prefix rule for no route).
  const attrs = requestAttributes(o.nodeName, user, method, path, routeSubresource(path));
  let decision;
  try {
    decision = await o.authorizer.authorize(attrs);
  } catch (e) {
    return {
      code: 500,
      body: `Authorization error ${describe(user.name, attrs.verb, attrs.subresource)}`,
      reason: `authorization failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  if (decision.decision === "allow") return { user, redacted: false };
  if (readOnlyView && user.name === ANONYMOUS_USER.name) return { user, redacted: true };
  return { code: 403, body: `Forbidden ${describe(user.name, attrs.verb, attrs.subresource)}`, reason: decision.reason || "not allowed" };
}

/**
 * Whether `address` (the --address to listen on) only accepts connections from this host: 127.0.0.0/8,
 * ::1, the IPv4-mapped form of a 127 address, or the name "localhost". "0.0.0.0" and "::" are every
 * interface; any other address is reachable from the network it belongs to.
 */
export function isLoopbackAddress(address: string): boolean {
  const a = address
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (a === "localhost") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  if (isIP(v4) === 4) return v4.startsWith("127.");
  // ::1 in any spelling (0:0:0:0:0:0:0:1, 0::1): only zero groups, then a final 1.
  if (isIP(a) === 6) return /^(0*:)+0*1$/.test(a);
  return false;
}

/**
 * Plain HTTP carries bearer tokens in the clear and cannot carry client certificates: --insecure-http
 * is for a standalone agent on loopback only. Returns the usage error, or undefined when fine.
 */
export function servingExposureError(address: string, insecureHttp: boolean): string | undefined {
  if (!insecureHttp || isLoopbackAddress(address)) return undefined;
  return (
    `--insecure-http serves the API without TLS, for this host only, and --address ${address} is not a loopback address: ` +
    "drop --insecure-http (the API then serves HTTPS, with --tls-cert-file or a self-signed certificate under --root-dir), or listen on 127.0.0.1"
  );
}
