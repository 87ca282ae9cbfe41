// Writing a protobuf message from the `X` input types of generated/: absent (undefined or null)
// fields are not sent, enums may be names or numbers, int64 numbers, numeric strings or bigints,
// bytes Uint8Arrays or base64 strings. Repeated numeric fields are packed (proto3).
import { CodecError, WIRE, type MessageSchema, type Scalar, type ValueType } from "./proto-schema";

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
      return w.varint64(((lo << 1) ^ sign) >>> 0, (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0);
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
