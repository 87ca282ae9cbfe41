// The HTTP status and the Status message of a failed API call, whichever way client-node reports it:
// an ApiException from the generated clients (code + body), or an Error with statusCode from a watch.
import { ApiException } from "@kubernetes/client-node";
import { errorMessage } from "../util";

/** The HTTP status of a failed call, undefined for a transport error (refused, reset, timeout). */
export function apiErrorCode(err: unknown): number | undefined {
  if (err instanceof ApiException) return err.code;
  if (err && typeof err === "object") {
    const e = err as { statusCode?: unknown; code?: unknown };
    if (typeof e.statusCode === "number") return e.statusCode;
    if (typeof e.code === "number") return e.code;
  }
  return undefined;
}

/** A one-line description: the API's Status message when there is one, else the error's own. */
export function apiErrorMessage(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = typeof err.body === "string" ? safeJson(err.body) : err.body;
    const msg = body && typeof body === "object" ? (body as { message?: unknown }).message : undefined;
    return `${err.code}${typeof msg === "string" && msg ? `: ${msg}` : ""}`;
  }
  return errorMessage(err);
}

/**
 * The API's Status message alone (`configmaps "x" is forbidden: …`), as client-go's errors print it and
 * the kubelet passes it on in its own messages; the error's own message when there is no Status.
 */
export function apiStatusMessage(err: unknown): string {
  if (err instanceof ApiException) {
    const body: unknown = typeof err.body === "string" ? safeJson(err.body) : err.body;
    const msg = body && typeof body === "object" ? (body as { message?: unknown }).message : undefined;
    return typeof msg === "string" && msg ? msg : `HTTP ${err.code}`;
  }
  return errorMessage(err);
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export const isNotFound = (err: unknown) => apiErrorCode(err) === 404;
export const isConflict = (err: unknown) => apiErrorCode(err) === 409;
export const isGone = (err: unknown) => apiErrorCode(err) === 410;
export const isForbidden = (err: unknown) => apiErrorCode(err) === 403;
export const isUnauthorized = (err: unknown) => apiErrorCode(err) === 401;
