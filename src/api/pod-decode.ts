// What Go's encoding/json makes of a manifest's value when the kubelet decodes it against the Pod's
// Go types (pod-schema.ts): a value of the wrong JSON type fails the whole pod, a field the struct
// does not have is dropped without a word (kept here, and listed for the linter), null is Go's zero value.
import { POD_SCHEMA, type Schema } from "./pod-schema";
import { Quantity, tryParseQuantity } from "./quantity";

/** A value the kubelet's decoder would refuse: the pod is rejected. */
export interface DecodeTypeError {
  field: string;
  message: string;
}

export interface PodDecoding {
  /** The value as the Go struct holds it: nulls dropped (Go keeps the zero value), quantities as strings. */
  value: unknown;
  typeErrors: DecodeTypeError[];
  /** Fields the Pod has no place for, which the kubelet drops without a word. */
  unknownFields: UnknownField[];
}

export interface UnknownField {
  field: string;
  /** The fields the struct does have there, to suggest the one that was meant. */
  known: readonly string[];
}

const KUBELET_DECODE = "the kubelet cannot decode the pod";
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** How a JSON value is named in a type error. */
export function jsonKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return "a number";
  if (typeof v === "boolean") return "a boolean";
  return typeof v;
}

/** A map key or field name as a field path segment: `.name`, or `[key]` when the key holds . or [. */
export function fieldPathChild(path: string, name: string): string {
  if (/[.[\]]/.test(name) || name === "") return `${path}[${name}]`;
  return path ? `${path}.${name}` : name;
}

function zeroValue(s: Schema): unknown {
  if (s === "string") return "";
  if (s === "int32" || s === "int64" || s === "intOrString") return 0;
  if (s === "bool") return false;
  if (s === "quantity") return "0";
  if (typeof s === "object" && "fields" in s) return {};
  return null;
}

class Decoder {
  readonly typeErrors: DecodeTypeError[] = [];
  readonly unknownFields: UnknownField[] = [];

  private wrong(path: string, want: string, v: unknown): unknown {
    this.typeErrors.push({ field: path, message: `must be ${want}, not ${jsonKind(v)} (${KUBELET_DECODE})` });
    return v;
  }

  private int(v: number, bits: 32 | 64, path: string): void {
    if (!Number.isInteger(v)) {
      this.typeErrors.push({ field: path, message: `must be an integer, not ${v} (${KUBELET_DECODE})` });
      return;
    }
    const [lo, hi] = bits === 32 ? [-2147483648, 2147483647] : [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    if (v < lo || v > hi) this.typeErrors.push({ field: path, message: `${v} does not fit in an int${bits} (${KUBELET_DECODE})` });
  }

  decode(v: unknown, s: Schema, path: string): unknown {
    switch (s) {
      case "any":
        return v;
      case "object":
        return isRecord(v) ? v : this.wrong(path, "a mapping", v);
      case "string":
        return typeof v === "string" ? v : this.wrong(path, "a string", v);
      case "bool":
        return typeof v === "boolean" ? v : this.wrong(path, "a boolean (true or false)", v);
      case "int32":
      case "int64":
        if (typeof v !== "number") return this.wrong(path, "an integer", v);
        this.int(v, s === "int32" ? 32 : 64, path);
        return v;
      case "intOrString":
        if (typeof v === "string") return v;
        if (typeof v !== "number") return this.wrong(path, "an integer or a string", v);
        this.int(v, 32, path);
        return v;
      case "quantity": {
        if (typeof v !== "string" && typeof v !== "number") return this.wrong(path, "a quantity such as 100m or 1Gi", v);
        // Quantity.UnmarshalJSON trims spaces before parsing.
        const text = typeof v === "string" ? v.trim() : v;
        const q = tryParseQuantity(text);
        if (!(q instanceof Quantity)) {
          this.typeErrors.push({ field: path, message: `${JSON.stringify(v)}: ${q.message}` });
          return v;
        }
        return typeof text === "number" ? q.toString() : text;
      }
    }
    if ("list" in s) {
      if (!Array.isArray(v)) return this.wrong(path, "a list", v);
      return v.map((item, i) => (item === null ? zeroValue(s.list) : this.decode(item, s.list, `${path}[${i}]`)));
    }
    if ("map" in s) {
      if (!isRecord(v)) return this.wrong(path, "a mapping", v);
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = item === null ? zeroValue(s.map) : this.decode(item, s.map, `${path}[${k}]`);
      return out;
    }
    if (!isRecord(v)) return this.wrong(path, "a mapping", v);
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const fieldSchema = Object.hasOwn(s.fields, k) ? s.fields[k] : undefined;
      if (fieldSchema === undefined) {
        // encoding/json drops it; the value is kept here so that nothing downstream loses it.
        this.unknownFields.push({ field: fieldPathChild(path, k), known: Object.keys(s.fields) });
        if (item !== null) out[k] = item;
        continue;
      }
      if (item === null) continue;
      // A field name from the schema never needs brackets.
      out[k] = this.decode(item, fieldSchema, path ? `${path}.${k}` : k);
    }
    return out;
  }
}

/**
 * Checks a decoded manifest object against the Pod's Go types, as encoding/json would when the
 * kubelet decodes it, and lists the fields it would drop. `path` prefixes every field path (for a
 * pod inside a PodList: "items[0]").
 */
export function decodePodFields(value: unknown, path = ""): PodDecoding {
  const d = new Decoder();
  const decoded = d.decode(value, POD_SCHEMA, path);
  return { value: decoded, typeErrors: d.typeErrors, unknownFields: d.unknownFields };
}
