// The protobuf codec of the CRI messages, driven by the descriptor generated from proto/api.proto
// (generated/descriptor.json, embedded in the binary). It replaces protobufjs + @grpc/proto-loader at
// run time, which built a reflection object and generated code for all ~190 message types at start
// (~17 MiB of the agent's idle RSS); here a type's schema is compiled from the descriptor the first
// time a message of it is read or written, and nothing else is kept.
//
// This file compiles the schemas; proto-decode.ts reads messages and proto-encode.ts writes them.
import descriptor from "./generated/descriptor.json" with { type: "json" };

/** The descriptor's JSON shape (protobufjs's toJSON), as far as the codec reads it. */
interface JsonField {
  type: string;
  id: number;
  rule?: string;
  keyType?: string;
  options?: { packed?: boolean };
}
interface JsonNamespace {
  nested?: Record<string, JsonNamespace>;
  fields?: Record<string, JsonField>;
  values?: Record<string, number>;
  methods?: Record<string, { requestType: string; responseType: string; responseStream?: boolean; requestStream?: boolean }>;
}

const ROOT = descriptor as unknown as JsonNamespace;

export type Scalar =
  | "double"
  | "float"
  | "int32"
  | "int64"
  | "uint32"
  | "uint64"
  | "sint32"
  | "sint64"
  | "fixed32"
  | "fixed64"
  | "sfixed32"
  | "sfixed64"
  | "bool"
  | "string"
  | "bytes";

export const WIRE: Record<Scalar, number> = {
  double: 1,
  float: 5,
  int32: 0,
  int64: 0,
  uint32: 0,
  uint64: 0,
  sint32: 0,
  sint64: 0,
  fixed32: 5,
  fixed64: 1,
  sfixed32: 5,
  sfixed64: 1,
  bool: 0,
  string: 2,
  bytes: 2,
};

export interface EnumSchema {
  readonly name: string;
  readonly byName: Map<string, number>;
  readonly byNumber: Map<number, string>;
  /** The zero value's name (proto3 enums start with it), the default. */
  readonly zero: string | number;
}

/** What a field holds: a scalar, an enum, or a message (its schema compiled on first use). */
export type ValueType = { kind: "scalar"; scalar: Scalar } | { kind: "enum"; schema: EnumSchema } | { kind: "message"; schema: () => MessageSchema };

export interface FieldSchema {
  readonly name: string;
  readonly id: number;
  readonly value: ValueType;
  readonly repeated: boolean;
  readonly packed: boolean;
  /** For a map field: the key's scalar type (the value is `value`). */
  readonly mapKey?: Scalar;
}

export interface MessageSchema {
  readonly name: string;
  readonly fields: readonly FieldSchema[];
  readonly byId: ReadonlyMap<number, FieldSchema>;
}

export class CodecError extends Error {}

const messages = new Map<string, MessageSchema>();
const enums = new Map<string, EnumSchema>();

/** The descriptor node at a dotted path, and its path. */
function lookup(scope: string[], name: string): { path: string[]; node: JsonNamespace } | undefined {
  const parts = name.replace(/^\./, "").split(".");
  // As protobuf resolves a relative name: from the innermost enclosing scope outwards.
  for (let i = name.startsWith(".") ? 0 : scope.length; i >= 0; i--) {
    let node: JsonNamespace | undefined = ROOT;
    for (const p of scope.slice(0, i)) node = node?.nested?.[p];
    for (const p of parts) node = node?.nested?.[p];
    if (node) return { path: [...scope.slice(0, i), ...parts], node };
  }
  return undefined;
}

function enumSchema(path: string[], node: JsonNamespace): EnumSchema {
  const key = path.join(".");
  let e = enums.get(key);
  if (!e) {
    const values = Object.entries(node.values ?? {});
    const byNumber = new Map<number, string>();
    for (const [n, v] of values) if (!byNumber.has(v)) byNumber.set(v, n);
    e = { name: key, byName: new Map(values), byNumber, zero: byNumber.get(0) ?? values[0]?.[0] ?? 0 };
    enums.set(key, e);
  }
  return e;
}

function valueType(scope: string[], type: string): ValueType {
  if (type in WIRE) return { kind: "scalar", scalar: type as Scalar };
  const found = lookup(scope, type);
  if (!found) throw new CodecError(`type ${type} (in ${scope.join(".")}) is not in the descriptor`);
  if (found.node.values) return { kind: "enum", schema: enumSchema(found.path, found.node) };
  if (!found.node.fields) throw new CodecError(`${found.path.join(".")} is neither a message nor an enum`);
  const { path, node } = found;
  return { kind: "message", schema: () => compile(path, node) };
}

function compile(path: string[], node: JsonNamespace): MessageSchema {
  const key = path.join(".");
  const known = messages.get(key);
  if (known) return known;
  const fields: FieldSchema[] = [];
  for (const [name, f] of Object.entries(node.fields ?? {})) {
    const value = valueType(path, f.type);
    const repeated = f.rule === "repeated";
    const numeric = value.kind === "enum" || (value.kind === "scalar" && value.scalar !== "string" && value.scalar !== "bytes");
    fields.push({
      name,
      id: f.id,
      value,
      repeated,
      packed: repeated && numeric && f.options?.packed !== false,
      ...(f.keyType ? { mapKey: f.keyType as Scalar } : {}),
    });
  }
  const schema: MessageSchema = { name: key, fields, byId: new Map(fields.map((f) => [f.id, f])) };
  messages.set(key, schema);
  return schema;
}

/** The schema of a message type by its full name ("runtime.v1.PodSandboxConfig"). */
export function messageSchema(fullName: string): MessageSchema {
  const known = messages.get(fullName);
  if (known) return known;
  const found = lookup([], fullName);
  if (!found?.node.fields) throw new CodecError(`message ${fullName} is not in the descriptor`);
  return compile(found.path, found.node);
}

export interface MethodInfo {
  /** The HTTP/2 path: /runtime.v1.RuntimeService/Version. */
  path: string;
  request: MessageSchema;
  response: MessageSchema;
  responseStream: boolean;
}

/** A service method's path and message types ("runtime.v1.RuntimeService", "Version"). */
export function methodInfo(service: string, method: string): MethodInfo {
  const found = lookup([], service);
  const m = found?.node.methods?.[method];
  if (!found || !m) throw new CodecError(`method ${service}/${method} is not in the descriptor`);
  const scope = found.path.slice(0, -1);
  const type = (name: string) => {
    const t = lookup(scope, name);
    if (!t?.node.fields) throw new CodecError(`message ${name} of ${service}/${method} is not in the descriptor`);
    return compile(t.path, t.node);
  };
  return {
    path: `/${found.path.join(".")}/${method}`,
    request: type(m.requestType),
    response: type(m.responseType),
    responseStream: m.responseStream === true,
  };
}
