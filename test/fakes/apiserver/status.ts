// Failure answers in the apiserver's wire shape: a meta/v1 Status with the reason, details and message
// text that k8s.io/apimachinery/pkg/api/errors produces, so clients' isNotFound/isConflict checks and
// logged messages look the same as against a real server.
import type { Status, StatusCause } from "kubernetes-types/meta/v1";

export interface Target {
  /** Plural resource name ("pods"), with its group for non-core ("leases.coordination.k8s.io"). */
  qualified: string;
  /** Resource name alone, used in StatusDetails.kind. */
  resource: string;
  group: string;
  name?: string;
}

/** Thrown by handlers; the router writes it as the response. */
export class ApiError extends Error {
  constructor(
    readonly status: Status,
    /** The Retry-After the answer carries (the API server's 429 from its max-in-flight limit). */
    readonly retryAfterSeconds?: number,
  ) {
    super(status.message);
  }
  get code(): number {
    return this.status.code ?? 500;
  }
}

function failure(code: number, reason: string, message: string, t?: Target, causes?: StatusCause[]): ApiError {
  const details = t ? { name: t.name, group: t.group || undefined, kind: t.resource, ...(causes ? { causes } : {}) } : undefined;
  return new ApiError({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, details, code });
}

export const notFound = (t: Target) => failure(404, "NotFound", `${t.qualified} "${t.name}" not found`, t);
export const alreadyExists = (t: Target) => failure(409, "AlreadyExists", `${t.qualified} "${t.name}" already exists`, t);
export const conflict = (t: Target, why: string) => failure(409, "Conflict", `Operation cannot be fulfilled on ${t.qualified} "${t.name}": ${why}`, t);
export const STALE = "the object has been modified; please apply your changes to the latest version and try again";
export const badRequest = (message: string) => failure(400, "BadRequest", message);
export const unauthorized = () => failure(401, "Unauthorized", "Unauthorized");
export const methodNotAllowed = (message: string) => failure(405, "MethodNotAllowed", message);
export const unsupportedMediaType = (type: string) =>
  failure(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json; got ${type}`,
  );
export const gone = (message: string) => failure(410, "Expired", message);
export const notFoundPath = () => failure(404, "NotFound", "the server could not find the requested resource");

/** 403 as the RBAC/Node authorizers phrase it (apiserver's endpoints/handlers/responsewriters.forbiddenMessage). */
export function forbidden(t: Target, user: string, verb: string, namespace: string | undefined, subresource: string | undefined, reason: string): ApiError {
  const res = subresource ? `${t.resource}/${subresource}` : t.resource;
  const scope = namespace ? ` in the namespace "${namespace}"` : " at the cluster scope";
  const msg = `User "${user}" cannot ${verb} resource "${res}" in API group "${t.group}"${scope}`;
  const subject = t.name ? `${t.qualified} "${t.name}"` : t.qualified;
  return failure(403, "Forbidden", `${subject} is forbidden: ${msg}${reason ? `: ${reason}` : ""}`, t);
}

/**
 * 403 from an admission plugin (apiserver's admission.NewForbidden): `<resource> "<name>" is forbidden: <why>`,
 * with the plugin's causes when it adds some (the PodResize plugin's NodeCapacity, UnsupportedPlatform).
 */
export function admissionForbidden(t: Target, why: string, causes?: StatusCause[]): ApiError {
  return failure(403, "Forbidden", `${t.qualified} "${t.name}" is forbidden: ${why}`, t, causes);
}

/** One field error of a 422: its path, its reason (field.ErrorType's cause name) and its text. */
export interface FieldCause {
  field: string;
  type: "FieldValueRequired" | "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueDuplicate" | "FieldValueNotFound";
  message: string;
}

/** 422 Invalid with field causes, message shaped like apimachinery's NewInvalid. */
export function invalid(t: Target, kind: string, causes: FieldCause[]): ApiError {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const text = list.length === 1 ? list[0] : `[${list.join(", ")}]`;
  // NewInvalid(GroupKind, name, errs): the details name the kind (not the resource) and its group; an empty name is left out.
  const group = kind.includes(".") ? kind.slice(kind.indexOf(".") + 1) : t.group;
  return failure(
    422,
    "Invalid",
    `${kind} "${t.name ?? ""}" is invalid: ${text}`,
    { ...t, name: t.name || undefined, group, resource: kind.split(".")[0]! },
    causes.map((c) => ({ reason: c.type, message: c.message, field: c.field })),
  );
}

/** An answer injected by failNext: a Status with the reason apimachinery uses for that code. */
export function injected(code: number, t: Target, retryAfterSeconds?: number): ApiError {
  if (code === 429) {
    // What the API server's max-in-flight filter answers (apiserver/pkg/server/filters/maxinflight.go).
    const seconds = retryAfterSeconds ?? 1;
    return new ApiError(
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Too many requests, please try again later.",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: seconds },
        code: 429,
      },
      seconds,
    );
  }
  const reasons: Record<number, string> = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    410: "Expired",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
  };
  if (code === 409) return conflict(t, STALE);
  return failure(code, reasons[code] ?? "Unknown", `injected ${code} for ${t.qualified}${t.name ? ` "${t.name}"` : ""}`, t);
}

export function success(): Status {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
}
