// Who is calling the agent's API, and what an anonymous caller may do: the standalone half of the
// kubelet's authentication filter (k/k pkg/kubelet/server/auth.go, whose bearer tokens and client
// certificates issue 16 brings). One credential exists here: the push token of --push-token-file.
//
// The decision, made once per request before routing (as the kubelet authenticates before it
// looks at the path, so an unknown path needs credentials too):
//   /healthz and /healthz/<name>           always open: probes of the agent itself carry no data.
//   with a token configured:
//     "Authorization: Bearer <the token>"  the full API: reads unredacted, POST/DELETE /pods.
//     "Authorization: Bearer <other>"      403, whatever the path (a wrong secret is never anonymous).
//     no credentials, GET/HEAD, and --anonymous-read-only
//                                          anonymous: pods redacted (redact.ts).
//     no credentials otherwise             401 with WWW-Authenticate: Bearer.
//   without a token: every caller is anonymous, whatever it sends; reads are redacted, and POST or
//   DELETE /pods are 403 "the push endpoints are disabled" (writeRefusal).
//
// Anonymous reads are what the kubelet's read-only port (10255) served, and why KubeletConfiguration
// turns that port off by default (readOnlyPort: 0): anything that can connect reads every pod. So an agent without a token keeps its API
// on loopback (servingExposureError), unless the operator opts in with --anonymous-read-only.
import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";

/** The caller a request was authenticated as (user names as the API server spells them). */
export type Caller = { authenticated: true; user: "nodeagent:push-token" } | { authenticated: false; user: "system:anonymous" };

export const ANONYMOUS: Caller = { authenticated: false, user: "system:anonymous" };
export const PUSH_TOKEN_CALLER: Caller = { authenticated: true, user: "nodeagent:push-token" };

export interface AuthPolicy {
  /** The push token; without one nobody authenticates and the push endpoints are disabled. */
  token?: string;
  /**
   * --anonymous-read-only: callers without credentials may read (redacted) even when a token is
   * configured, and an agent without a token may listen beyond loopback.
   */
  anonymousReadOnly?: boolean;
}

/** Why a request was refused: an HTTP status, a message for the v1 Status, headers to add. */
export interface AuthRefusal {
  code: 401 | 403;
  message: string;
  headers?: Record<string, string>;
  /** For the agent's log: the reason, without the secret. */
  reason: string;
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/** Compares in constant time: hashing first makes both sides the same length whatever was sent. */
export function tokenMatches(expected: string, got: string): boolean {
  return timingSafeEqual(digest(expected), digest(got));
}

/** GET and HEAD: the methods an anonymous caller may use. */
export function isRead(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

/**
 * Authenticates a request that is not a health check: the caller, or the refusal to answer with.
 * With a token configured, a caller without credentials gets past only to read, and only when
 * --anonymous-read-only allows it. Without a token nobody can authenticate: every caller is anonymous
 * (the agent listens beyond loopback only when told to), and writes are refused by writeRefusal.
 */
export function authenticate(p: AuthPolicy, method: string, authorization: string | null): Caller | AuthRefusal {
  if (!p.token) return ANONYMOUS;
  const m = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (m) {
    return tokenMatches(p.token, m[1]!) ? PUSH_TOKEN_CALLER : { code: 403, message: "Forbidden: the bearer token is not valid for this agent", reason: "wrong bearer token" };
  }
  if (p.anonymousReadOnly && isRead(method)) return ANONYMOUS;
  return {
    code: 401,
    message: "Unauthorized: this endpoint needs an Authorization: Bearer <token> header (the token of the agent's --push-token-file)",
    headers: { "WWW-Authenticate": 'Bearer realm="nodeagent"' },
    reason: authorization === null ? "no bearer token" : "not a bearer token",
  };
}

/** Why `caller` may not push or delete pods, or undefined when it may. */
export function writeRefusal(p: AuthPolicy, caller: Caller): AuthRefusal | undefined {
  if (caller.authenticated) return undefined;
  if (!p.token) {
    return {
      code: 403,
      message: "the push endpoints are disabled: start the agent with --push-token-file to enable POST /pods and DELETE /pods/<namespace>/<name>",
      reason: "push endpoints disabled",
    };
  }
  return {
    code: 401,
    message: "Unauthorized: this endpoint needs an Authorization: Bearer <token> header (the token of the agent's --push-token-file)",
    headers: { "WWW-Authenticate": 'Bearer realm="nodeagent"' },
    reason: "no bearer token",
  };
}

export function isRefusal(x: Caller | AuthRefusal): x is AuthRefusal {
  return "code" in x;
}

/**
 * Whether `address` (the --address to listen on) only accepts connections from this host: 127.0.0.0/8,
 * ::1, the IPv4-mapped form of a 127 address, or the name "localhost". "0.0.0.0" and "::" are every
 * interface; any other address is reachable from the network it belongs to.
 */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (a === "localhost") return true;
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  if (isIP(v4) === 4) return v4.startsWith("127.");
  // ::1 in any spelling (0:0:0:0:0:0:0:1, 0::1): only zero groups, then a final 1.
  if (isIP(a) === 6) return /^(0*:)+0*1$/.test(a);
  return false;
}

/**
 * The rule that keeps anonymous reads local: without a token, listening beyond loopback needs the
 * explicit --anonymous-read-only. Returns the usage error to print, or undefined when the address is fine.
 */
export function servingExposureError(address: string, p: AuthPolicy): string | undefined {
  if (p.token || p.anonymousReadOnly || isLoopbackAddress(address)) return undefined;
  return (
    `--address ${address} is not a loopback address, and without --push-token-file anyone who can reach it ` +
    "could read every pod on this node: give --push-token-file (every endpoint but /healthz then needs its bearer token), " +
    "listen on 127.0.0.1, or pass --anonymous-read-only to serve the redacted read-only view to anyone on the network"
  );
}
