// A fast path for the YAML that manifests are almost always written in: block mappings and sequences,
// one-line plain and quoted scalars, one-line flow lists and maps of scalars, comments. It builds the
// same nodes (with the same ranges) and the same data as the `yaml` library composes, an order of
// magnitude faster, resolving plain scalars with that library's own YAML 1.1 tags so that `yes`,
// `0644` and `1e3` mean what the kubelet's decoder makes of them. Anything else — anchors, tags,
// block scalars, multi-line scalars, tabs, several documents, anything malformed — makes it give up
// (undefined), and the caller parses with the library. test/manifest/fast-yaml.test.ts checks the
// two agree on every input the fast path accepts.
import { Document, isScalar, Pair, Scalar, Schema, YAMLMap, YAMLSeq, type Node, type Tags } from "yaml";

interface ScalarTag {
  default?: boolean | "key";
  test?: RegExp;
  resolve(value: string, onError: (message: string) => void, options: Record<string, unknown>): unknown;
}

/** Why parsing stopped: the input is outside the fast path's subset (not necessarily invalid YAML). */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();

interface Line {
  /** Offset of the first character after the indentation. */
  start: number;
  /** Offset of the line's end (the "\n" or the end of the text). */
  end: number;
  indent: number;
}

/**
 * Characters that cannot start a plain scalar (or that start something the fast path leaves alone);
 * "-", "?" and ":" can, when a non-space follows ("--flag", "-1").
 */
const INDICATOR = new Set(["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`"]);
/** Only printable characters, no tab, no CR, no BOM, nothing outside the Basic Multilingual Plane. */
const UNSUPPORTED_CHARS = /[^\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
const SIMPLE_ESCAPES: Record<string, string> = { "\\": "\\", '"': '"', "/": "/", n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "0": "\0" };

export class FastYaml {
  private readonly tags: ScalarTag[];
  private readonly resolved = new Map<string, unknown>();

  constructor(customTags: (tags: Tags) => Tags) {
    const schema = new Schema({ schema: "yaml-1.1", customTags, merge: true });
    this.tags = (schema.tags as unknown as ScalarTag[]).filter((t) => t.default === true && t.test);
  }

  /** What the library's composer makes of a plain scalar: the first default tag whose test matches. */
  private resolvePlain(text: string): unknown {
    const cached = this.resolved.get(text);
    if (cached !== undefined || this.resolved.has(text)) return cached;
    let value: unknown = text;
    for (const tag of this.tags) {
      if (!tag.test!.test(text)) continue;
      let failed = false;
      value = tag.resolve(text, () => (failed = true), { intAsBigInt: false });
      if (failed) throw GIVE_UP;
      break;
    }
    // Some tags resolve to a Scalar (to keep the source format); the composer unwraps it.
    if (isScalar(value)) value = value.value;
    if (typeof value === "object" && value !== null) throw GIVE_UP;
    // As the JSON the kubelet converts YAML to: .inf and .nan have no JSON form.
    if (typeof value === "number" && !Number.isFinite(value)) value = null;
    if (this.resolved.size < 10000) this.resolved.set(text, value);
    return value;
  }

  /** The document and its data, or undefined when the text is outside the fast path's subset. */
  parse(text: string): { doc: Document; value: unknown } | undefined {
    if (UNSUPPORTED_CHARS.test(text)) return undefined;
    try {
      return new FastParser(text, this).parse();
    } catch (e) {
      if (e instanceof GiveUp) return undefined;
      throw e;
    }
  }

  scalar(text: string, start: number, end: number, isKey: boolean): { node: Scalar; value: unknown } {
    const value = this.resolvePlain(text);
    if (isKey && text === "<<") throw GIVE_UP;
    return { node: scalarNode(value, text, start, end), value };
  }
}

function startsPlain(text: string, i: number, end: number): boolean {
  const c = text[i]!;
  if (!INDICATOR.has(c)) return true;
  if (c !== "-" && c !== "?" && c !== ":") return false;
  return i + 1 < end && text.charCodeAt(i + 1) !== 32;
}

function scalarNode(value: unknown, source: string, start: number, end: number): Scalar {
  const node = new Scalar(value);
  node.source = source;
  node.range = [start, end, end];
  return node;
}

class FastParser {
  private readonly lines: Line[] = [];
  private next = 0;

  constructor(
    private readonly text: string,
    private readonly yaml: FastYaml,
  ) {
    let offset = 0;
    let first = true;
    while (offset <= text.length) {
      const nl = text.indexOf("\n", offset);
      const end = nl < 0 ? text.length : nl;
      let i = offset;
      while (i < end && text.charCodeAt(i) === 32) i++;
      const blank = i === end || text.charCodeAt(i) === 35; /* # */
      if (!blank) {
        const content = text.slice(i, end);
        if (i === offset && (content.startsWith("---") || content.startsWith("...") || content.startsWith("%"))) {
          // A leading "---" alone is fine; every other marker or directive is left to the library.
          if (!(first && content === "---")) throw GIVE_UP;
        } else {
          this.lines.push({ start: i, end, indent: i - offset });
        }
        first = false;
      }
      if (nl < 0) break;
      offset = nl + 1;
    }
  }

  parse(): { doc: Document; value: unknown } {
    const line = this.lines[0];
    if (!line || line.indent !== 0 || this.isSeqItem(line)) throw GIVE_UP;
    const { node, value } = this.mapping(line.indent, line.start);
    if (this.next < this.lines.length) throw GIVE_UP;
    const doc = new Document();
    doc.contents = node as never;
    return { doc, value };
  }

  private isSeqItem(line: Line): boolean {
    const c = this.text.charCodeAt(line.start);
    if (c !== 45 /* - */) return false;
    const after = this.text.charCodeAt(line.start + 1);
    return line.start + 1 === line.end || after === 32;
  }

  /** A block value that starts on the line after `key:` or `-`, or null when there is none. */
  private nestedBlock(parentIndent: number, allowSameIndentSeq: boolean, at: number): { node: Node; value: unknown } {
    const line = this.lines[this.next];
    if (line && line.indent > parentIndent) {
      return this.isSeqItem(line) ? this.sequence(line.indent) : this.mapping(line.indent, line.start);
    }
    if (line && allowSameIndentSeq && line.indent === parentIndent && this.isSeqItem(line)) return this.sequence(line.indent);
    const node = scalarNode(null, "", at, at);
    return { node, value: null };
  }

  /** A block mapping whose entries sit at `indent`; the first one starts at `firstStart` (maybe after "- "). */
  private mapping(indent: number, firstStart: number): { node: YAMLMap; value: Record<string, unknown> } {
    const map = new YAMLMap();
    const value: Record<string, unknown> = {};
    let start = firstStart;
    let line = this.lines[this.next]!;
    for (;;) {
      this.next++;
      const entry = this.entry(start, line.end, indent);
      map.items.push(new Pair(entry.key, entry.node));
      const k = entry.keyValue;
      const jsKey = k === null ? "" : String(k);
      if (jsKey === "__proto__") throw GIVE_UP;
      value[jsKey] = entry.value;
      const following = this.lines[this.next];
      if (!following || following.indent < indent) break;
      if (following.indent > indent || this.isSeqItem(following)) throw GIVE_UP;
      line = following;
      start = following.start;
    }
    map.range = [firstStart, this.endOfLast(), this.endOfLast()];
    return { node: map, value };
  }

  private endOfLast(): number {
    return this.lines[this.next - 1]!.end;
  }

  /** One `key: value` entry, the key starting at `start`, its line ending at `end`. */
  private entry(start: number, end: number, indent: number): { key: Scalar; keyValue: unknown; node: Node; value: unknown } {
    const text = this.text;
    let key: Scalar;
    let keyValue: unknown;
    let colon: number;
    const c = text[start]!;
    if (c === '"' || c === "'") {
      const q = this.quoted(start, end);
      key = q.node;
      keyValue = q.value;
      colon = q.end;
      if (text[colon] !== ":") throw GIVE_UP;
    } else {
      if (!startsPlain(text, start, end)) throw GIVE_UP;
      colon = text.indexOf(":", start + 1);
      while (colon >= 0 && colon < end && colon + 1 < end && text.charCodeAt(colon + 1) !== 32) colon = text.indexOf(":", colon + 1);
      if (colon < 0 || colon >= end) throw GIVE_UP;
      const raw = text.slice(start, colon);
      const trimmed = raw.trimEnd();
      if (trimmed.length === 0 || trimmed.includes(" #")) throw GIVE_UP;
      const r = this.yaml.scalar(trimmed, start, start + trimmed.length, true);
      key = r.node;
      keyValue = r.value;
    }
    let i = colon + 1;
    while (i < end && text.charCodeAt(i) === 32) i++;
    if (i === end || text.charCodeAt(i) === 35 /* # */) {
      if (i < end && text.charCodeAt(i - 1) !== 32) throw GIVE_UP;
      const nested = this.nestedBlock(indent, true, i);
      return { key, keyValue, ...nested };
    }
    if (i === colon + 1) throw GIVE_UP;
    const inline = this.inline(i, end);
    return { key, keyValue, ...inline };
  }

  /** A block sequence whose dashes sit at `indent`. */
  private sequence(indent: number): { node: YAMLSeq; value: unknown[] } {
    const seq = new YAMLSeq();
    const value: unknown[] = [];
    const first = this.lines[this.next]!;
    for (;;) {
      const line = this.lines[this.next]!;
      const text = this.text;
      let i = line.start + 1;
      while (i < line.end && text.charCodeAt(i) === 32) i++;
      if (i === line.end || text.charCodeAt(i) === 35) {
        this.next++;
        const nested = this.nestedBlock(indent, false, i);
        seq.items.push(nested.node);
        value.push(nested.value);
      } else if (this.startsEntry(i, line.end)) {
        // "- key: value": a mapping whose entries sit at the column of this first key.
        const column = i - (line.start - line.indent);
        const virtual: Line = { start: i, end: line.end, indent: column };
        this.lines[this.next] = virtual;
        const m = this.mapping(column, i);
        seq.items.push(m.node);
        value.push(m.value);
      } else {
        this.next++;
        const inline = this.inline(i, line.end);
        seq.items.push(inline.node);
        value.push(inline.value);
      }
      const following = this.lines[this.next];
      if (!following || following.indent < indent) break;
      if (following.indent > indent || !this.isSeqItem(following)) {
        if (following.indent === indent && !this.isSeqItem(following)) break;
        throw GIVE_UP;
      }
    }
    seq.range = [first.start, this.endOfLast(), this.endOfLast()];
    return { node: seq, value };
  }

  /** Does a mapping entry (`key:` followed by a space or the line's end) start at i? */
  private startsEntry(i: number, end: number): boolean {
    const text = this.text;
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      return close > 0 && close < end && text[close + 1] === ":";
    }
    if (!startsPlain(text, i, end)) return false;
    for (let j = text.indexOf(":", i + 1); j >= 0 && j < end; j = text.indexOf(":", j + 1)) {
      if (j + 1 === end || text.charCodeAt(j + 1) === 32) return true;
    }
    return false;
  }

  /** A value on the rest of a line: a quoted or plain scalar, or a one-line flow list or map. */
  private inline(i: number, end: number): { node: Node; value: unknown } {
    const text = this.text;
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const q = this.quoted(i, end);
      this.restIsComment(q.end, end);
      return q;
    }
    if (c === "[" || c === "{") return this.flow(i, end);
    if (!startsPlain(text, i, end)) throw GIVE_UP;
    let stop = end;
    const hash = text.indexOf(" #", i);
    if (hash >= 0 && hash < end) stop = hash;
    const raw = text.slice(i, stop).trimEnd();
    if (raw.includes(": ") || raw.endsWith(":")) throw GIVE_UP;
    return this.yaml.scalar(raw, i, i + raw.length, false);
  }

  private restIsComment(from: number, end: number): void {
    let j = from;
    while (j < end && this.text.charCodeAt(j) === 32) j++;
    if (j < end && (this.text.charCodeAt(j) !== 35 || j === from)) throw GIVE_UP;
  }

  /** A quoted scalar that closes on its own line; `end` (returned) is the offset after the closing quote. */
  private quoted(i: number, lineEnd: number): { node: Scalar; value: string; end: number } {
    const text = this.text;
    const quote = text[i]!;
    let out = "";
    let j = i + 1;
    for (;;) {
      if (j >= lineEnd) throw GIVE_UP;
      const ch = text[j]!;
      if (ch === quote) {
        if (quote === "'" && text[j + 1] === "'") {
          out += "'";
          j += 2;
          continue;
        }
        break;
      }
      if (quote === '"' && ch === "\\") {
        const esc = text[j + 1];
        if (esc === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) {
          const code = parseInt(text.slice(j + 2, j + 6), 16);
          if (code >= 0xd800 && code <= 0xdfff) throw GIVE_UP;
          out += String.fromCharCode(code);
          j += 6;
          continue;
        }
        const simple = esc === undefined ? undefined : SIMPLE_ESCAPES[esc];
        if (simple === undefined) throw GIVE_UP;
        out += simple;
        j += 2;
        continue;
      }
      out += ch;
      j++;
    }
    const end = j + 1;
    const node = scalarNode(out, out, i, end);
    node.type = quote === '"' ? "QUOTE_DOUBLE" : "QUOTE_SINGLE";
    return { node, value: out, end };
  }

  /** `[a, "b"]` or `{k: v, "k2": 'v2'}` on one line, scalars only. */
  private flow(i: number, end: number): { node: Node; value: unknown } {
    const text = this.text;
    const open = text[i]!;
    const close = open === "[" ? "]" : "}";
    const isMap = open === "{";
    const items: Array<{ node: Node; value: unknown; key?: Scalar; keyValue?: unknown }> = [];
    let j = i + 1;
    const skipSpaces = (): void => {
      while (j < end && text.charCodeAt(j) === 32) j++;
    };
    skipSpaces();
    if (text[j] === close) {
      j++;
    } else {
      for (;;) {
        skipSpaces();
        let key: Scalar | undefined;
        let keyValue: unknown;
        if (isMap) {
          const k = this.flowScalar(j, end, true);
          key = k.node as Scalar;
          keyValue = k.value;
          j = k.end;
          skipSpaces();
          if (text[j] !== ":" || text.charCodeAt(j + 1) !== 32) throw GIVE_UP;
          j += 1;
          skipSpaces();
        }
        const v = this.flowScalar(j, end, false);
        j = v.end;
        items.push({ node: v.node, value: v.value, ...(isMap ? { key: key!, keyValue } : {}) });
        skipSpaces();
        if (text[j] === ",") {
          j++;
          skipSpaces();
          if (text[j] === close) throw GIVE_UP;
          continue;
        }
        if (text[j] === close) {
          j++;
          break;
        }
        throw GIVE_UP;
      }
    }
    this.restIsComment(j, end);
    if (isMap) {
      const map = new YAMLMap();
      map.flow = true;
      const value: Record<string, unknown> = {};
      for (const item of items) {
        map.items.push(new Pair(item.key!, item.node));
        const jsKey = item.keyValue === null ? "" : String(item.keyValue);
        if (jsKey === "__proto__") throw GIVE_UP;
        value[jsKey] = item.value;
      }
      map.range = [i, j, j];
      return { node: map, value };
    }
    const seq = new YAMLSeq();
    seq.flow = true;
    for (const item of items) seq.items.push(item.node);
    seq.range = [i, j, j];
    return { node: seq, value: items.map((item) => item.value) };
  }

  /** A scalar inside a flow collection: quoted, or plain up to `,`, the closing bracket or `: `. */
  private flowScalar(i: number, end: number, isKey: boolean): { node: Node; value: unknown; end: number } {
    const text = this.text;
    const c = text[i];
    if (c === undefined || i >= end) throw GIVE_UP;
    if (c === '"' || c === "'") {
      const q = this.quoted(i, end);
      return { node: q.node, value: q.value, end: q.end };
    }
    if (!startsPlain(text, i, end)) throw GIVE_UP;
    let j = i;
    while (j < end) {
      const ch = text[j]!;
      if (ch === "," || ch === "]" || ch === "}" || ch === "[" || ch === "{" || ch === "#") break;
      if (ch === ":" && (text.charCodeAt(j + 1) === 32 || text[j + 1] === "," || text[j + 1] === "]" || text[j + 1] === "}")) break;
      j++;
    }
    const raw = text.slice(i, j).trimEnd();
    if (raw.length === 0 || text[j] === "[" || text[j] === "{" || text[j] === "#") throw GIVE_UP;
    if (!isKey && text[j] === ":") throw GIVE_UP;
    const r = this.yaml.scalar(raw, i, i + raw.length, isKey);
    return { ...r, end: i + raw.length };
  }
}
