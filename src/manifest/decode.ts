// Decoding a manifest's text the way the kubelet does (pkg/kubelet/config/common.go tryDecodeSinglePod:
// utilyaml.ToJSON then the legacy decoder): YAML 1.1 through go-yaml v2, so `yes`/`on`/`y` are booleans
// and `0755` is octal, JSON accepted because it is YAML, and only the first document read. Unlike the
// kubelet, every problem comes back with a line and column, and field paths can be mapped back to
// where they are written.
import { isAlias, isCollection, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Alias, type Document, type Node, type Pair, type Tags } from "yaml";
import type { ManifestError } from "./types";

/** The kubelet's maxConfigLength (pkg/kubelet/config/common.go): 10 MB. */
export const MAX_MANIFEST_BYTES = 10 * 1 << 20;

/** What the kubelet logs for an empty or whitespace-only manifest (a half-written file, often). */
export const KUBELET_EMPTY_MANIFEST = "couldn't parse as pod(Object 'Kind' is missing in 'null')";

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  column: number;
}

export type DecodeResult =
  | { ok: true; value: unknown; positionOf(field: string): SourcePosition }
  | { ok: false; errors: ManifestError[] };

/** A field path segment: a key (metadata, [app.kubernetes.io/name]) or a list index ([0]). */
type Segment = string | number;

/** Splits "spec.containers[0].resources.limits[cpu]" into its segments. */
export function parseFieldPath(field: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  let current = "";
  const flush = (): void => {
    if (current !== "") segments.push(current);
    current = "";
  };
  while (i < field.length) {
    const ch = field[i]!;
    if (ch === ".") {
      flush();
      i++;
    } else if (ch === "[") {
      flush();
      const end = field.indexOf("]", i + 1);
      const inner = end < 0 ? field.slice(i + 1) : field.slice(i + 1, end);
      segments.push(/^[0-9]+$/.test(inner) ? Number(inner) : inner);
      i = end < 0 ? field.length : end + 1;
    } else {
      current += ch;
      i++;
    }
  }
  flush();
  return segments;
}

/** YAML 1.1 timestamps stay strings, as they do on the way through sigs.k8s.io/yaml to JSON. */
const NO_TIMESTAMPS = (tags: Tags): Tags => tags.filter((t) => typeof t === "string" || t.tag !== "tag:yaml.org,2002:timestamp");

class PlainError extends Error {}

/**
 * Copies what yaml's toJS produced into plain JSON-like data (what the kubelet's YAML-to-JSON step
 * yields), refusing cycles: an alias inside its own anchor, which go-yaml rejects as an unknown anchor.
 */
function plain(value: unknown, ancestors: Set<object>): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "bigint") return Number(value);
    if (typeof value === "number" && !Number.isFinite(value)) return null;
    return value;
  }
  if (ancestors.has(value)) throw new PlainError("an alias refers to the node that contains it (a recursive alias)");
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  ancestors.add(value);
  try {
    if (Array.isArray(value) || value instanceof Set) return [...value].map((v) => plain(v, ancestors));
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) out[String(k)] = plain(v, ancestors);
    return out;
  } finally {
    ancestors.delete(value);
  }
}

function keyText(key: unknown): string | undefined {
  if (isScalar(key)) {
    // The merge key `<<` is held as a symbol.
    return typeof key.value === "symbol" ? key.value.description : String(key.value);
  }
  if (key === null || key === undefined) return undefined;
  if (typeof key === "object") return undefined;
  return String(key);
}

/** The node's start offset, or undefined for a node that has no source (an empty value). */
function startOf(node: unknown): number | undefined {
  if (isScalar(node)) {
    if (node.value === null && (node.source === "" || node.source === undefined)) return undefined;
    return node.range?.[0];
  }
  if (isCollection(node) || isAlias(node)) return (node as Node).range?.[0];
  return undefined;
}

function findPair(map: unknown, key: string, doc: Document, depth = 0): Pair | undefined {
  if (!isMap(map) || depth > 20) return undefined;
  for (const pair of map.items) if (keyText(pair.key) === key) return pair;
  // YAML 1.1 merge keys (`<<: *base`): the key may come from a merged mapping.
  for (const pair of map.items) {
    if (keyText(pair.key) !== "<<") continue;
    const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
    for (const s of sources) {
      const target = isAlias(s) ? s.resolve(doc) : s;
      const found = findPair(target, key, doc, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

function makePositionOf(doc: Document, toPosition: (offset: number) => SourcePosition): (field: string) => SourcePosition {
  return (field: string): SourcePosition => {
    let node: unknown = doc.contents;
    let best = startOf(node) ?? 0;
    for (const segment of parseFieldPath(field)) {
      if (isAlias(node)) node = (node as Alias).resolve(doc);
      let next: unknown;
      if (isMap(node)) {
        const pair = findPair(node, String(segment), doc);
        if (!pair) break;
        const valueStart = startOf(pair.value);
        const keyStart = startOf(pair.key);
        best = valueStart ?? keyStart ?? best;
        next = pair.value;
      } else if (isSeq(node) && typeof segment === "number") {
        next = node.items[segment];
        if (next === undefined) break;
        best = startOf(next) ?? best;
      } else {
        break;
      }
      node = next;
    }
    return toPosition(best);
  };
}

function error(file: string, line: number, column: number, message: string, field = ""): ManifestError {
  return { file, line, column, field, message };
}

/** A document holding nothing but comments or blank lines. */
function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  return c === null || (isScalar(c) && c.value === null && (c.source === "" || c.source === undefined));
}

/**
 * Decodes the first YAML (or JSON) document of a manifest. Never throws: empty, oversized, binary,
 * deeply nested or otherwise broken input comes back as positioned errors.
 */
export function decodeDocument(text: string, file: string): DecodeResult {
  const lineCount = text.split("\n").length;
  try {
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_MANIFEST_BYTES) {
      return {
        ok: false,
        errors: [error(file, 1, 1, `manifest is ${bytes} bytes; the kubelet reads at most ${MAX_MANIFEST_BYTES} bytes (maxConfigLength, 10 MB)`)],
      };
    }
    const lines = new LineCounter();
    const parsed = parseAllDocuments(text, {
      version: "1.1",
      lineCounter: lines,
      prettyErrors: false,
      // yaml's own uniqueKeys check compares every key with every other (quadratic: seconds for a
      // map of 20 000 keys); duplicateKeys below does it with a set.
      uniqueKeys: false,
      merge: true,
      customTags: NO_TIMESTAMPS,
    });
    const docs: Document[] = Array.isArray(parsed) ? parsed : [];
    const pos = (offset: number): SourcePosition => {
      const p = lines.linePos(Math.max(0, Math.min(offset, text.length)));
      return { line: Math.max(1, Math.min(p.line, lineCount)), column: Math.max(1, p.col) };
    };
    const first = docs[0];
    if (!first || isEmptyDocument(first)) {
      const at = first ? pos(first.range?.[0] ?? 0) : { line: 1, column: 1 };
      const errors = [error(file, at.line, at.column, `empty manifest (the kubelet says: ${KUBELET_EMPTY_MANIFEST})`)];
      return { ok: false, errors: [...errors, ...extraDocuments(docs, file, pos)] };
    }

    const errors: ManifestError[] = [];
    for (const e of first.errors) {
      const at = pos(e.pos[0]);
      errors.push(error(file, at.line, at.column, `invalid YAML: ${e.message}`));
    }
    if (first.errors.length === 0) {
      for (const d of duplicateKeys(first)) {
        const at = pos(d.offset);
        const message = `duplicate key ${JSON.stringify(d.key)} (the kubelet's YAML decoder would silently keep only one of them)`;
        errors.push(error(file, at.line, at.column, message));
      }
    }
    errors.push(...extraDocuments(docs, file, pos));
    if (errors.length > 0) return { ok: false, errors };

    let value: unknown;
    try {
      value = plain(first.toJS({ maxAliasCount: 100 }), new Set());
    } catch (e) {
      const at = pos(first.range?.[0] ?? 0);
      const why = e instanceof PlainError ? e.message : `the document cannot be decoded: ${e instanceof Error ? e.message : String(e)}`;
      return { ok: false, errors: [error(file, at.line, at.column, why)] };
    }
    return { ok: true, value, positionOf: makePositionOf(first, pos) };
  } catch (e) {
    // The parser and toJS recurse; absurd nesting can exhaust the stack.
    const why = e instanceof RangeError ? "the manifest is nested too deeply to decode" : `the manifest cannot be decoded: ${e instanceof Error ? e.message : String(e)}`;
    return { ok: false, errors: [error(file, 1, 1, why)] };
  }
}

/**
 * Keys that occur twice in one mapping, compared as the JSON keys they become (so `yes` and `true`
 * collide, as they would after the kubelet's YAML-to-JSON step). Walks the tree without recursion.
 */
function duplicateKeys(doc: Document): Array<{ key: string; offset: number }> {
  const found: Array<{ key: string; offset: number }> = [];
  const stack: unknown[] = [doc.contents];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isCollection(node) || seen.has(node)) continue;
    seen.add(node);
    if (isMap(node)) {
      const keys = new Set<string>();
      for (const pair of node.items) {
        const k = isScalar(pair.key) && typeof pair.key.value !== "symbol" ? String(pair.key.value) : undefined;
        if (k !== undefined) {
          if (keys.has(k)) found.push({ key: k, offset: (pair.key as Node).range?.[0] ?? 0 });
          keys.add(k);
        }
        stack.push(pair.value);
      }
    } else {
      for (const item of node.items) stack.push(item);
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}

/** go-yaml decodes one document; any further non-empty document would be silently ignored. */
function extraDocuments(docs: Document[], file: string, pos: (offset: number) => SourcePosition): ManifestError[] {
  const errors: ManifestError[] = [];
  for (const doc of docs.slice(1)) {
    if (isEmptyDocument(doc) && doc.errors.length === 0) continue;
    const at = pos(doc.range?.[0] ?? 0);
    errors.push(
      error(file, at.line, at.column, `multi-document manifests are not supported: the kubelet reads only the first document; found another at line ${at.line}`),
    );
  }
  return errors;
}
