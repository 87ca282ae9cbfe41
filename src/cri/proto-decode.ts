// Reading a protobuf message into the shape proto-loader gave with the options the generated types
// describe (proto-options.ts: camelCase fields, defaults, int64 as number, enums as names), so the
// `X__Output` types in generated/ stay true:
//   - every field is present: scalars default to 0 / "" / false, an enum to its zero value's name,
//     bytes to an empty Buffer, repeated fields to [], maps to {}, absent messages to null;
//   - int64 and uint64 are numbers (precision beyond 2^53 is lost, as with `longs: Number`);
//   - an enum value the descriptor does not name stays a number.
// Repeated numeric fields are read packed or not.
import { CodecError, type MessageSchema, type Scalar, type ValueType } from "./proto-schema";

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
    lo = (~lo + 1) >>> 0;
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
