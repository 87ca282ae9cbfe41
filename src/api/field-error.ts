// apimachinery's field.Error in TypeScript: the error a validator returns, the constructors named after
// field.Required, field.Invalid…, the field-path builders, and the formatting (%q, %v) that makes a
// message read exactly as `kubectl apply` or the kubelet's log would print it.
import { Quantity } from "./quantity";

/** apimachinery field.ErrorType, by the name of its constructor. */
export type FieldErrorType = "Required" | "Invalid" | "Duplicate" | "NotFound" | "NotSupported" | "TooLong" | "Forbidden";

export interface FieldError {
  /** The field path as Kubernetes prints it: spec.containers[0].image, metadata.labels[app]. */
  field: string;
  type: FieldErrorType;
  /** The offending value (printed for Invalid, Duplicate, NotFound and NotSupported). */
  value?: unknown;
  /** The explanation after the value, e.g. "must be between 1 and 65535, inclusive". */
  detail?: string;
  /** The whole error as field.Error.Error() formats it: "spec.containers[0].image: Required value". */
  message: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: "Required value",
  Invalid: "Invalid value",
  Duplicate: "Duplicate value",
  NotFound: "Not found",
  NotSupported: "Unsupported value",
  TooLong: "Too long",
  Forbidden: "Forbidden",
};

/** Go's strconv.Quote, which %q uses: printable runes as they are, the rest escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\x07") out += "\\a";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (ch === "\v") out += "\\v";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += ch;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + '"';
}

/** How field.Error prints a bad value: %v for numbers and booleans, %q for strings, %#v otherwise. */
function formatValue(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (typeof value === "string") return goQuote(value);
  // A resource.Quantity passed by value is printed through its String() method.
  if (value instanceof Quantity) return value.toString();
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    return `[]string{${value.map((v) => goQuote(v as string)).join(", ")}}`;
  }
  try {
    return JSON.stringify(value) ?? "null";
  } catch {
    return String(value);
  }
}

/** field.Error.ErrorBody(): the message without the field path. */
export function fieldErrorBody(e: Pick<FieldError, "type" | "value" | "detail">): string {
  let s = TYPE_TEXT[e.type];
  // Required, Forbidden and TooLong never print the value.
  if (e.type !== "Required" && e.type !== "Forbidden" && e.type !== "TooLong") s += `: ${formatValue(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** field.Error.Error(): "<field>: <body>". */
export function fieldErrorMessage(e: Pick<FieldError, "field" | "type" | "value" | "detail">): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

export function makeError(field: string, type: FieldErrorType, value: unknown, detail: string): FieldError {
  const e: FieldError = { field, type, message: "" };
  if (type !== "Required" && type !== "Forbidden") e.value = value;
  if (detail) e.detail = detail;
  e.message = fieldErrorMessage(e);
  return e;
}

export const required = (field: string, detail = ""): FieldError => makeError(field, "Required", undefined, detail);
export const invalid = (field: string, value: unknown, detail: string): FieldError => makeError(field, "Invalid", value, detail);
export const duplicate = (field: string, value: unknown): FieldError => makeError(field, "Duplicate", value, "");
export const notFound = (field: string, value: unknown): FieldError => makeError(field, "NotFound", value, "");
export const forbidden = (field: string, detail: string): FieldError => makeError(field, "Forbidden", undefined, detail);
export const tooLong = (field: string, max: number): FieldError => makeError(field, "TooLong", undefined, `must have at most ${max} bytes`);
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(", ")}` : "";
  return makeError(field, "NotSupported", value, detail);
}

export const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
export const index = (path: string, i: number): string => `${path}[${i}]`;
export const key = (path: string, k: string): string => `${path}[${k}]`;
