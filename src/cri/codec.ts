// The protobuf codec of the CRI messages, driven by the descriptor generated from proto/api.proto
// (generated/descriptor.json, embedded in the binary). It replaces protobufjs + @grpc/proto-loader at
// run time, which built a reflection object and generated code for all ~190 message types at start
// (~17 MiB of the agent's idle RSS); here a type's schema is compiled from the descriptor the first
// time a message of it is read or written, and nothing else is kept.
//
// Decoded objects have exactly the shape proto-loader gave with the options the generated types
// describe (proto-options.ts: camelCase fields, defaults, int64 as number, enums as names), so the
// `X__Output` types in generated/ stay true:
//   - every field is present: scalars default to 0 / "" / false, an enum to its zero value's name,
//     bytes to an empty Buffer, repeated fields to [], maps to {}, absent messages to null;
//   - int64 and uint64 are numbers (precision beyond 2^53 is lost, as with `longs: Number`);
//   - an enum value the descriptor does not name stays a number.
// Encoding takes the `X` input types: absent (undefined or null) fields are not sent, enums may be
// names or numbers, int64 numbers, numeric strings or bigints, bytes Uint8Arrays or base64 strings.
// Repeated numeric fields are packed (proto3); both forms are read.
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

type Scalar = "double" | "float" | "int32" | "int64" | "uint32" | "uint64" | "sint32" | "sint64" | "fixed32" | "fixed64" | "sfixed32" | "sfixed64" | "bool" | "string" | "bytes";

const WIRE: Record<Scalar, number> = {
  double: 1, float: 5, int32: 0, int64: 0, uint32: 0, uint64: 0, sint32: 0, sint64: 0,
  fixed32: 5, fixed64: 1, sfixed32: 5, sfixed64: 1, bool: 0, string: 2, bytes: 2,
};

interface EnumSchema {
  readonly name: string;
  readonly byName: Map<string, number>;
  readonly byNumber: Map<number, string>;
  /** The zero value's name (proto3 enums start with it), the default. */
  readonly zero: string | number;
}

/** What a field holds: a scalar, an enum, or a message (its schema compiled on first use). */
type ValueType = { kind: "scalar"; scalar: Scalar } | { kind: "enum"; schema: EnumSchema } | { kind: "message"; schema: () => MessageSchema };

interface FieldSchema {
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

// ---- schema compilation

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
  return { path: `/${found.path.join(".")}/${method}`, request: type(m.requestType), response: type(m.responseType), responseStream: m.responseStream === true };
}

// ---- decoding

class Reader {
  pos: number;
  private view: DataView | undefined;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }
  private byte(): number {
    if (this.pos >= this.end) throw new CodecError("message truncated");
    return this.buf[this.pos++]!;
  }
  /** A varint's low 32 bits (unsigned); the rest of a longer varint is read and dropped. */
  varint32(): number {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.byte();
      value |= (b & 0x7f) << shift;
      if (b < 0x80) return value >>> 0;
    }
    // Bits beyond 32 (a negative int32 is sign-extended to 10 bytes).
    for (let i = 0; i < 5; i++) if (this.byte() < 0x80) return value >>> 0;
    throw new CodecError("varint too long");
  }
  /** A 64-bit varint as its low and high 32 bits. */
  varint64(): [number, number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.byte();
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return [lo >>> 0, hi >>> 0];
    }
    throw new CodecError("varint too long");
  }
  fixed(bytes: 4 | 8): DataView {
    if (this.pos + bytes > this.end) throw new CodecError("message truncated");
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.pos += bytes;
    return this.view;
  }
  length(): number {
    const n = this.varint32();
    if (this.pos + n > this.end) throw new CodecError("length beyond the message");
    return n;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint64();
    else if (wire === 1) this.fixed(8);
    else if (wire === 2) {
      const n = this.length(); // read before pos is: `pos += length()` would lose the length's bytes
      this.pos += n;
    } else if (wire === 5) this.fixed(4);
    else throw new CodecError(`wire type ${wire} not supported`);
  }
}

function int64(lo: number, hi: number, signed: boolean): number {
  if (signed && hi >>> 31) {
    // Two's complement: negate the 64-bit value.
    lo = ~lo + 1 >>> 0;
    hi = ~hi >>> 0;
    if (lo === 0) hi = (hi + 1) >>> 0;
    return -(lo + hi * 4294967296);
  }
  return lo + hi * 4294967296;
}

function readScalar(r: Reader, s: Scalar): unknown {
  switch (s) {
    case "string": {
      const n = r.length();
      const v = r.buf.toString("utf8", r.pos, r.pos + n);
      r.pos += n;
      return v;
    }
    case "bytes": {
      const n = r.length();
      // A copy: the message's buffer is not kept alive by what was decoded from it.
      const v = Buffer.from(r.buf.subarray(r.pos, r.pos + n));
      r.pos += n;
      return v;
    }
    case "bool":
      return r.varint64().some((x) => x !== 0);
    case "int32":
      return r.varint32() | 0;
    case "uint32":
      return r.varint32();
    case "sint32": {
      const n = r.varint32();
      return (n >>> 1) ^ -(n & 1);
    }
    case "int64":
      return int64(...r.varint64(), true);
    case "uint64":
      return int64(...r.varint64(), false);
    case "sint64": {
      const [lo, hi] = r.varint64();
      // Zigzag: (n >>> 1) ^ -(n & 1) on 64 bits.
      const neg = lo & 1;
      let l = ((lo >>> 1) | (hi << 31)) >>> 0;
      let h = hi >>> 1;
      if (neg) {
        l = ~l >>> 0;
        h = ~h >>> 0;
      }
      return int64(l, h, true);
    }
    default:
      return readFixed(r, s);
  }
}

function readFixed(r: Reader, s: Scalar): unknown {
  const at = r.pos;
  switch (s) {
    case "fixed32":
      return r.fixed(4).getUint32(at, true);
    case "sfixed32":
      return r.fixed(4).getInt32(at, true);
    case "float":
      return r.fixed(4).getFloat32(at, true);
    case "double":
      return r.fixed(8).getFloat64(at, true);
    case "fixed64": {
      const v = r.fixed(8);
      return int64(v.getUint32(at, true), v.getUint32(at + 4, true), false);
    }
    case "sfixed64": {
      const v = r.fixed(8);
      return int64(v.getUint32(at, true), v.getUint32(at + 4, true), true);
    }
    default:
      throw new CodecError(`scalar ${s} not supported`);
  }
}

function scalarDefault(s: Scalar): unknown {
  if (s === "string") return "";
  if (s === "bool") return false;
  if (s === "bytes") return Buffer.alloc(0);
  return 0;
}

function readValue(r: Reader, t: ValueType): unknown {
  if (t.kind === "scalar") return readScalar(r, t.scalar);
  if (t.kind === "enum") {
    const n = r.varint32() | 0;
    return t.schema.byNumber.get(n) ?? n;
  }
  const n = r.length();
  const v = decodeRange(t.schema(), r.buf, r.pos, r.pos + n);
  r.pos += n;
  return v;
}

function valueDefault(t: ValueType): unknown {
  if (t.kind === "scalar") return scalarDefault(t.scalar);
  if (t.kind === "enum") return t.schema.zero;
  return null;
}

function decodeRange(schema: MessageSchema, buf: Buffer, start: number, end: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) out[f.name] = f.mapKey ? {} : f.repeated ? [] : valueDefault(f.value);
  const r = new Reader(buf, start, end);
  while (r.pos < end) {
    const tag = r.varint32();
    const id = tag >>> 3;
    const wire = tag & 7;
    const f = schema.byId.get(id);
    if (!f) {
      r.skip(wire);
      continue;
    }
    if (f.mapKey) {
      const n = r.length();
      const entryEnd = r.pos + n;
      let key: unknown = scalarDefault(f.mapKey);
      let value: unknown = valueDefault(f.value);
      while (r.pos < entryEnd) {
        const t = r.varint32();
        if (t >>> 3 === 1) key = readScalar(r, f.mapKey);
        else if (t >>> 3 === 2) value = readValue(r, f.value);
        else r.skip(t & 7);
      }
      (out[f.name] as Record<string, unknown>)[String(key)] = value;
    } else if (f.repeated) {
      const list = out[f.name] as unknown[];
      if (wire === 2 && f.value.kind !== "message" && !(f.value.kind === "scalar" && (f.value.scalar === "string" || f.value.scalar === "bytes"))) {
        const n = r.length();
        const packedEnd = r.pos + n;
        while (r.pos < packedEnd) list.push(readValue(r, f.value));
      } else {
        list.push(readValue(r, f.value));
      }
    } else if (f.value.kind === "message" && out[f.name] !== null && wire === 2) {
      // A message field seen twice is merged (protobuf semantics); the runtime never does this.
      const n = r.length();
      const more = decodeRange(f.value.schema(), buf, r.pos, r.pos + n);
      r.pos += n;
      Object.assign(out[f.name] as object, more);
    } else {
      out[f.name] = readValue(r, f.value);
    }
  }
  if (r.pos !== end) throw new CodecError(`${schema.name}: a field runs past the end of the message`);
  return out;
}

/** Decodes one message (the bytes of a gRPC message, without its 5-byte prefix). */
export function decodeMessage<T>(schema: MessageSchema, bytes: Uint8Array): T {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return decodeRange(schema, buf, 0, buf.length) as T;
}

// ---- encoding

class Writer {
  private buf = Buffer.allocUnsafe(256);
  len = 0;
  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }
  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }
  varint32(n: number): void {
    n >>>= 0;
    this.ensure(5);
    while (n >= 0x80) {
      this.buf[this.len++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.len++] = n;
  }
  varint64(lo: number, hi: number): void {
    this.ensure(10);
    while (hi !== 0 || lo >= 0x80) {
      this.buf[this.len++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    this.buf[this.len++] = lo;
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  string(s: string): void {
    const n = Buffer.byteLength(s, "utf8");
    this.varint32(n);
    this.ensure(n);
    this.buf.write(s, this.len, n, "utf8");
    this.len += n;
  }
  fixed(n: 4 | 8, set: (v: DataView, at: number) => void): void {
    this.ensure(n);
    set(new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength), this.len);
    this.len += n;
  }
  finish(): Buffer {
    return this.buf.subarray(0, this.len);
  }
}

/** A number, numeric string or bigint as the low and high 32 bits of its 64-bit two's complement. */
function int64Bits(v: unknown, field: string): [number, number] {
  let b: bigint;
  try {
    b = BigInt(typeof v === "number" ? Math.trunc(v) : (v as string | bigint));
  } catch {
    throw new CodecError(`${field}: ${JSON.stringify(v)} is not an integer`);
  }
  const u = BigInt.asUintN(64, b);
  return [Number(u & 0xffffffffn), Number(u >> 32n)];
}

function writeScalar(w: Writer, s: Scalar, v: unknown, field: string): void {
  switch (s) {
    case "string":
      return w.string(String(v));
    case "bytes": {
      const b = typeof v === "string" ? Buffer.from(v, "base64") : (v as Uint8Array);
      w.varint32(b.length);
      return w.bytes(b);
    }
    case "bool":
      return w.byte(v ? 1 : 0);
    case "int32": {
      const n = Number(v) | 0;
      // A negative int32 is sign-extended to 64 bits on the wire.
      return n < 0 ? w.varint64(n >>> 0, 0xffffffff) : w.varint32(n);
    }
    case "uint32":
      return w.varint32(Number(v));
    case "sint32": {
      const n = Number(v) | 0;
      return w.varint32(((n << 1) ^ (n >> 31)) >>> 0);
    }
    case "int64":
    case "uint64": {
      if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 4294967296) return w.varint32(v);
      return w.varint64(...int64Bits(v, field));
    }
    case "sint64": {
      const [lo, hi] = int64Bits(v, field);
      const sign = hi >>> 31 ? 0xffffffff : 0;
      return w.varint64((((lo << 1) ^ sign) >>> 0), (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0);
    }
    case "fixed32":
      return w.fixed(4, (d, at) => d.setUint32(at, Number(v) >>> 0, true));
    case "sfixed32":
      return w.fixed(4, (d, at) => d.setInt32(at, Number(v) | 0, true));
    case "float":
      return w.fixed(4, (d, at) => d.setFloat32(at, Number(v), true));
    case "double":
      return w.fixed(8, (d, at) => d.setFloat64(at, Number(v), true));
    case "fixed64":
    case "sfixed64": {
      const [lo, hi] = int64Bits(v, field);
      return w.fixed(8, (d, at) => {
        d.setUint32(at, lo, true);
        d.setUint32(at + 4, hi, true);
      });
    }
  }
}

function wireOf(t: ValueType): number {
  return t.kind === "scalar" ? WIRE[t.scalar] : t.kind === "enum" ? 0 : 2;
}

function writeValue(w: Writer, t: ValueType, v: unknown, field: string): void {
  if (t.kind === "scalar") return writeScalar(w, t.scalar, v, field);
  if (t.kind === "enum") {
    const n = typeof v === "number" ? v : t.schema.byName.get(String(v));
    if (n === undefined) throw new CodecError(`${field}: ${JSON.stringify(v)} is not a value of ${t.schema.name}`);
    return n < 0 ? w.varint64(n >>> 0, 0xffffffff) : w.varint32(n);
  }
  if (typeof v !== "object") throw new CodecError(`${field}: expected an object, got ${typeof v}`);
  const sub = encodeInto(new Writer(), t.schema(), v as Record<string, unknown>).finish();
  w.varint32(sub.length);
  w.bytes(sub);
}

function encodeInto(w: Writer, schema: MessageSchema, obj: Record<string, unknown>): Writer {
  for (const f of schema.fields) {
    const v = obj[f.name];
    if (v === undefined || v === null) continue;
    const field = `${schema.name}.${f.name}`;
    if (f.mapKey) {
      if (typeof v !== "object") throw new CodecError(`${field}: expected an object (a map)`);
      for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
        if (val === undefined || val === null) continue;
        const entry = new Writer();
        entry.varint32((1 << 3) | WIRE[f.mapKey]);
        writeScalar(entry, f.mapKey, k, field);
        entry.varint32((2 << 3) | wireOf(f.value));
        writeValue(entry, f.value, val, field);
        const bytes = entry.finish();
        w.varint32((f.id << 3) | 2);
        w.varint32(bytes.length);
        w.bytes(bytes);
      }
    } else if (f.repeated) {
      if (!Array.isArray(v)) throw new CodecError(`${field}: expected an array`);
      if (v.length === 0) continue;
      if (f.packed) {
        const packed = new Writer();
        for (const x of v) writeValue(packed, f.value, x, field);
        const bytes = packed.finish();
        w.varint32((f.id << 3) | 2);
        w.varint32(bytes.length);
        w.bytes(bytes);
      } else {
        for (const x of v) {
          w.varint32((f.id << 3) | wireOf(f.value));
          writeValue(w, f.value, x, field);
        }
      }
    } else {
      w.varint32((f.id << 3) | wireOf(f.value));
      writeValue(w, f.value, v, field);
    }
  }
  return w;
}

/** Encodes one message from its input form. Throws CodecError naming the field for a wrong value. */
export function encodeMessage(schema: MessageSchema, obj: object): Buffer {
  return encodeInto(new Writer(), schema, obj as Record<string, unknown>).finish();
}
