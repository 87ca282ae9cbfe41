// The answers of the agent's API: errors as v1 Status objects, as the API server returns them, so
// kubectl-style clients and `jq .message` both work; plain text where the kubelet writes it.
import type { Status } from "kubernetes-types/meta/v1";

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

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function statusObject(code: number, message: string, details?: Status["details"]): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: code < 400 ? "Success" : "Failure", message, code };
  const reason = code < 400 ? undefined : (REASONS[code] ?? (code >= 500 ? "InternalError" : "BadRequest"));
  if (reason) status.reason = reason;
  if (details) status.details = details;
  return status;
}

export function failure(code: number, message: string, headers: Record<string, string> = {}): Response {
  return json(statusObject(code, message), code, headers);
}

export function text(body: string, status = 200, headers: Record<string, string> = {}): Response {
  // healthz sets nosniff so a browser never renders check messages as HTML.
  return new Response(body, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", ...headers } });
}

/** An RFC 7234 Warning header as the API server sends its warnings: 299 - "text" (kubectl prints them). */
export function warningHeader(message: string): string {
  return `299 - ${JSON.stringify(oneLine(message).replace(/[^\x20-\x7e]/g, "?"))}`;
}

/** Newlines folded: a message fit for a header or a one-line check. */
export function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

export function methodNotAllowed(method: string, path: string, allow: string[]): Response {
  return failure(405, `method ${method} is not allowed on ${path}; allowed: ${allow.join(", ")}`, { Allow: allow.join(", ") });
}

/** A decoded path segment, or undefined for a malformed escape such as "%zz". */
export function segment(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
