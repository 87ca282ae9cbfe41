// HPACK (RFC 7541), the header compression of HTTP/2, for the CRI client's own HTTP/2 connection
// (h2-connection.ts). The two directions are deliberately unequal:
//  - the encoder never indexes: every field is a static-table reference or a literal "without
//    indexing", so it keeps no state and never has to follow the peer's table size;
//  - the decoder is complete, because the runtime's encoder (Go's x/net/http2/hpack, as in containerd)
//    uses the dynamic table and Huffman-codes strings as it sees fit. Its table is bounded by the
//    4096 octets that SETTINGS_HEADER_TABLE_SIZE defaults to, which this client never raises.
// A malformed block throws HpackError: the connection that received it is unusable (RFC 7541 §2.3.3,
// a COMPRESSION_ERROR), since the peer's table and ours no longer agree.
import { HUFFMAN_CODES, HUFFMAN_LENGTHS, STATIC_TABLE } from "./hpack-tables";

export type HeaderField = readonly [name: string, value: string];

export class HpackError extends Error {}

/** The header table size this side allows the peer's encoder (SETTINGS_HEADER_TABLE_SIZE's default). */
export const HEADER_TABLE_SIZE = 4096;

/** Static table index of each name, and of each full name/value pair, for the encoder. */
let staticNames: Map<string, number> | undefined;
let staticPairs: Map<string, number> | undefined;

function staticIndex(): [Map<string, number>, Map<string, number>] {
  if (!staticNames || !staticPairs) {
    staticNames = new Map();
    staticPairs = new Map();
    STATIC_TABLE.forEach(([n, v], i) => {
      if (!staticNames!.has(n)) staticNames!.set(n, i + 1);
      staticPairs!.set(`${n}\0${v}`, i + 1);
    });
  }
  return [staticNames, staticPairs];
}

/** An integer with an N-bit prefix (§5.1); `first` holds the bits above the prefix. */
function writeInt(out: number[], value: number, prefixBits: number, first: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(first | value);
    return;
  }
  out.push(first | max);
  value -= max;
  while (value >= 128) {
    out.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
}

/** A string literal, not Huffman-coded (§5.2). Header names and values here are ASCII. */
function writeString(out: number[], s: string): void {
  writeInt(out, s.length, 7, 0);
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i) & 0xff);
}

/** Encodes a header list; names must be lowercase, as HTTP/2 requires. */
export function encodeHeaders(fields: readonly HeaderField[]): Uint8Array {
  const [names, pairs] = staticIndex();
  const out: number[] = [];
  for (const [name, value] of fields) {
    const pair = pairs.get(`${name}\0${value}`);
    if (pair !== undefined) {
      writeInt(out, pair, 7, 0x80); // indexed header field (§6.1)
      continue;
    }
    const nameIndex = names.get(name);
    // Literal header field without indexing (§6.2.2): indexed name, or a new name.
    writeInt(out, nameIndex ?? 0, 4, 0x00);
    if (nameIndex === undefined) writeString(out, name);
    writeString(out, value);
  }
  return Uint8Array.from(out);
}

// ---- Huffman decoding (§5.2, Appendix B): a binary trie built once from the code table.

/** Trie nodes as [zero child, one child] pairs; a child < 0 is the symbol ~child (256 = EOS). */
let trie: Int32Array | undefined;

function huffmanTrie(): Int32Array {
  if (trie) return trie;
  // A prefix code of 257 symbols has 256 inner nodes.
  const t = new Int32Array(2 * 256);
  let nodes = 1;
  const add = (code: number, length: number, symbol: number) => {
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((code >>> bit) & 1);
      if (bit === 0) {
        t[slot] = ~symbol;
      } else {
        if (t[slot] === 0) t[slot] = nodes++;
        node = t[slot]!;
      }
    }
  };
  for (let s = 0; s < 256; s++) add(HUFFMAN_CODES[s]!, HUFFMAN_LENGTHS[s]!, s);
  add(0x3fffffff, 30, 256);
  trie = t;
  return t;
}

function huffmanDecode(bytes: Uint8Array): string {
  const t = huffmanTrie();
  let out = "";
  let node = 0;
  // Bits read since the last complete symbol, and whether they were all ones (valid padding).
  let pending = 0;
  let allOnes = true;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >>> bit) & 1;
      const next = t[2 * node + one]!;
      pending++;
      allOnes &&= one === 1;
      if (next < 0) {
        const symbol = ~next;
        if (symbol === 256) throw new HpackError("Huffman string holds EOS");
        out += String.fromCharCode(symbol);
        node = 0;
        pending = 0;
        allOnes = true;
      } else {
        if (next === 0) throw new HpackError("invalid Huffman code");
        node = next;
      }
    }
  }
  // Padding: the most significant bits of EOS, fewer than 8 (§5.2).
  if (pending > 7 || !allOnes) throw new HpackError("invalid Huffman padding");
  return out;
}

/**
 * A decoding context: one per connection, fed every header block the peer sends, in order.
 */
export class HpackDecoder {
  /** The dynamic table, newest first (dynamic index 1 is entries[0]). */
  private entries: HeaderField[] = [];
  private size = 0;
  private maxSize = HEADER_TABLE_SIZE;

  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    let pos = 0;
    const readInt = (prefixBits: number): number => {
      const max = (1 << prefixBits) - 1;
      let value = block[pos++]! & max;
      if (value < max) return value;
      let shift = 0;
      for (;;) {
        if (pos >= block.length) throw new HpackError("truncated integer");
        const b = block[pos++]!;
        value += (b & 0x7f) * 2 ** shift;
        shift += 7;
        if ((b & 0x80) === 0) return value;
        if (shift > 28) throw new HpackError("integer too large");
      }
    };
    const readString = (): string => {
      if (pos >= block.length) throw new HpackError("truncated string");
      const huffman = (block[pos]! & 0x80) !== 0;
      const length = readInt(7);
      if (pos + length > block.length) throw new HpackError("truncated string");
      const raw = block.subarray(pos, pos + length);
      pos += length;
      return huffman ? huffmanDecode(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("latin1");
    };
    const field = (index: number): HeaderField => {
      if (index >= 1 && index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
      const e = this.entries[index - STATIC_TABLE.length - 1];
      if (index < 1 || !e) throw new HpackError(`header index ${index} out of range`);
      return e;
    };
    let sawField = false;
    while (pos < block.length) {
      const b = block[pos]!;
      if (b & 0x80) {
        fields.push(field(readInt(7))); // indexed (§6.1)
        sawField = true;
      } else if (b & 0x40) {
        // Literal with incremental indexing (§6.2.1).
        const index = readInt(6);
        const name = index ? field(index)[0] : readString();
        const f: HeaderField = [name, readString()];
        fields.push(f);
        this.insert(f);
        sawField = true;
      } else if (b & 0x20) {
        // Dynamic table size update (§6.3): only at the start of a block, never above our setting.
        if (sawField) throw new HpackError("table size update after a header field");
        const size = readInt(5);
        if (size > HEADER_TABLE_SIZE) throw new HpackError(`table size ${size} above ${HEADER_TABLE_SIZE}`);
        this.maxSize = size;
        this.evict();
      } else {
        // Literal without indexing (0000) or never indexed (0001) (§6.2.2, §6.2.3).
        const index = readInt(4);
        const name = index ? field(index)[0] : readString();
        fields.push([name, readString()]);
        sawField = true;
      }
    }
    return fields;
  }

  private insert(f: HeaderField): void {
    const size = f[0].length + f[1].length + 32;
    if (size > this.maxSize) {
      // An entry larger than the table empties it (§4.4).
      this.entries = [];
      this.size = 0;
      return;
    }
    this.entries.unshift(f);
    this.size += size;
    this.evict();
  }

  private evict(): void {
    while (this.size > this.maxSize) {
      const e = this.entries.pop()!;
      this.size -= e[0].length + e[1].length + 32;
    }
  }
}
