// Decoding a manifest's text the way the kubelet does (pkg/kubelet/config/common.go tryDecodeSinglePod:
// utilyaml.ToJSON then the legacy decoder): YAML 1.1 through go-yaml v2, so `yes`/`on`/`y` are booleans
// and `0755` is octal, JSON accepted because it is YAML, and only the first document read. Unlike the
// kubelet, every problem comes back with a line and column, and field paths can be mapped back to
// where they are written.
import { isAlias, isCollection, isMap, isScalar, isSeq, parseAllDocuments, type Alias, type Document, type Node, type Pair, type Tags } from "yaml";
import { errorMessage } from "../util";
import { FastYaml } from "./fast-yaml";
import type { ManifestError } from "./types";

/** The kubelet's maxConfigLength (pkg/kubelet/config/common.go): 10 MB. */
export const MAX_MANIFEST_BYTES = (10 * 1) << 20;

/** What the kubelet logs for an empty or whitespace-only manifest (a half-written file, often). */
export const KUBELET_EMPTY_MANIFEST = "couldn't parse as pod(Object 'Kind' is missing in 'null')";

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units as editors count them. */
  column: number;
}

export type DecodeResult = { ok: true; value: unknown; positionOf(field: string): SourcePosition } | { ok: false; errors: ManifestError[] };

/** A stretch of the source; the end is exclusive (the position after the last character), as in SARIF. */
export interface SourceRange extends SourcePosition {
  endLine: number;
  endColumn: number;
}

/**
 * Where a field path is written. "value" (the default) gives the value, "key" the key that names it.
 * A path that is not all there gives the deepest part that is: a missing field points at its parent.
 * A mapping or list is shown by the key that names it, or (a list item) by its first line.
 */
export type Locator = (field: string, part?: "key" | "value") => SourceRange;

/** What can be wrong with a manifest's text before anything is known about pods. */
export type DecodeProblemCode = "too-large" | "empty" | "syntax" | "duplicate-key" | "multiple-documents" | "undecodable";

export interface DecodeProblem extends SourceRange {
  code: DecodeProblemCode;
  message: string;
}

/**
 * A manifest's first document, decoded as the kubelet decodes it, and every problem found on the way.
 * `value` is there whenever the first document could be decoded at all, even when a problem was
 * found (a duplicate key, a further document), so that a linter can go on checking it.
 */
export interface ParsedManifest {
  value?: unknown;
  problems: DecodeProblem[];
  locate: Locator;
  positionOf(field: string): SourcePosition;
}

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

/** The fast path for plain block YAML, resolving scalars with the same tags as the library path. */
const FAST_YAML = new FastYaml(NO_TIMESTAMPS);

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

/**
 * Offsets to 1-based line and column, lines split at "\n" as editors count them. (yaml's LineCounter
 * only learns the lines its lexer reaches, which broken input can leave short.)
 */
function positionsIn(text: string): (offset: number) => SourcePosition {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset: number): SourcePosition => {
    const at = Math.max(0, Math.min(offset, text.length));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: at - starts[lo]! + 1 };
  };
}

/** A range at least one character wide (at the very end of the text, the one past it). */
function rangeBetween(from: SourcePosition, to: SourcePosition): SourceRange {
  const empty = to.line < from.line || (to.line === from.line && to.column <= from.column);
  return empty ? { ...from, endLine: from.line, endColumn: from.column + 1 } : { ...from, endLine: to.line, endColumn: to.column };
}

interface Found {
  node: unknown;
  key: unknown;
  /** The fallback of positionOf: the deepest value start, or the key of an empty value. */
  best: number;
}

/** Follows a field path through the document: merge keys and aliases are followed as go-yaml does. */
function walk(doc: Document, field: string): Found {
  let node: unknown = doc.contents;
  let key: unknown;
  let best = startOf(node) ?? 0;
  for (const segment of parseFieldPath(field)) {
    if (isAlias(node)) node = (node as Alias).resolve(doc);
    let next: unknown;
    if (isMap(node)) {
      const pair = findPair(node, String(segment), doc);
      if (!pair) break;
      best = startOf(pair.value) ?? startOf(pair.key) ?? best;
      key = pair.key;
      next = pair.value;
    } else if (isSeq(node) && typeof segment === "number") {
      next = node.items[segment];
      if (next === undefined) break;
      best = startOf(next) ?? best;
      key = undefined;
    } else {
      break;
    }
    node = next;
  }
  return { node, key, best };
}

function makeLocator(doc: Document, text: string, toPosition: (offset: number) => SourcePosition): Locator {
  const rangeOf = (start: number, end: number): SourceRange => rangeBetween(toPosition(start), toPosition(Math.max(start + 1, end)));
  /** A collection, or a node without an end, is shown by its first line. */
  const firstLine = (start: number): SourceRange => {
    const newline = text.indexOf("\n", start);
    let end = newline < 0 ? text.length : newline;
    while (end > start + 1 && /\s/.test(text[end - 1]!)) end--;
    return rangeOf(start, end);
  };
  return (field: string, part: "key" | "value" = "value"): SourceRange => {
    const found = walk(doc, field);
    const keyRange = isScalar(found.key) ? found.key.range : undefined;
    const valueStart = startOf(found.node);
    const node = found.node;
    const scalarRange = isScalar(node) || isAlias(node) ? node.range : undefined;
    if (part === "value" && scalarRange && valueStart !== undefined) return rangeOf(scalarRange[0], scalarRange[1]);
    // A key says more than the first line of the mapping or list it names.
    if (keyRange) return rangeOf(keyRange[0], keyRange[1]);
    return firstLine(valueStart ?? found.best);
  };
}

function makePositionOf(doc: Document, toPosition: (offset: number) => SourcePosition): (field: string) => SourcePosition {
  return (field: string): SourcePosition => toPosition(walk(doc, field).best);
}

function error(file: string, line: number, column: number, message: string, field = ""): ManifestError {
  return { file, line, column, field, message };
}

/** A document holding nothing but comments or blank lines. */
function isEmptyDocument(doc: Document): boolean {
  const c = doc.contents;
  return c === null || (isScalar(c) && c.value === null && (c.source === "" || c.source === undefined));
}

/** What is wrong with a manifest of this many bytes, past the kubelet's limit. */
export function tooLargeMessage(bytes: number): string {
  return `manifest is ${bytes} bytes; the kubelet reads at most ${MAX_MANIFEST_BYTES} bytes (maxConfigLength, 10 MB)`;
}

const AT_START: SourceRange = { line: 1, column: 1, endLine: 1, endColumn: 2 };

function problemAt(code: DecodeProblemCode, at: SourceRange, message: string): DecodeProblem {
  return { code, message, line: at.line, column: at.column, endLine: at.endLine, endColumn: at.endColumn };
}

/** A manifest that could not be parsed far enough to locate anything: every field is at 1:1. */
function unlocated(problems: DecodeProblem[]): ParsedManifest {
  return { problems, locate: () => AT_START, positionOf: () => ({ line: 1, column: 1 }) };
}

/**
 * Parses a manifest's first YAML (or JSON) document as the kubelet does and reports every problem on
 * the way, each with its range. Never throws: empty, oversized, binary, deeply nested or otherwise
 * broken input comes back as problems. Plain block YAML takes the fast path (fast-yaml.ts), the rest
 * the `yaml` library; `fastPath: false` forces the library, to compare the two.
 */
export function parseManifest(text: string, options: { fastPath?: boolean } = {}): ParsedManifest {
  try {
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_MANIFEST_BYTES) {
      return unlocated([problemAt("too-large", AT_START, tooLargeMessage(bytes))]);
    }
    const pos = positionsIn(text);
    const range = (start: number, end: number): SourceRange => rangeBetween(pos(start), pos(Math.max(start + 1, end)));
    const duplicateProblems = (doc: Document): DecodeProblem[] =>
      duplicateKeys(doc).map((d) => {
        const message = `duplicate key ${JSON.stringify(d.key)} (the kubelet's YAML decoder would silently keep only one of them)`;
        return problemAt("duplicate-key", range(d.start, d.end), message);
      });
    const fast = options.fastPath === false ? undefined : FAST_YAML.parse(text);
    if (fast) {
      const located = { locate: makeLocator(fast.doc, text, pos), positionOf: makePositionOf(fast.doc, pos) };
      // The fast path builds plain JSON-like data already (no aliases, dates or big integers).
      return { value: fast.value, problems: duplicateProblems(fast.doc), ...located };
    }
    const parsed = parseAllDocuments(text, {
      version: "1.1",
      prettyErrors: false,
      // yaml's own uniqueKeys check compares every key with every other (quadratic: seconds for a
      // map of 20 000 keys); duplicateKeys below does it with a set.
      uniqueKeys: false,
      merge: true,
      customTags: NO_TIMESTAMPS,
    });
    const docs: Document[] = Array.isArray(parsed) ? parsed : [];
    const first = docs[0];
    if (!first || isEmptyDocument(first)) {
      const at = first ? range(first.range?.[0] ?? 0, first.range?.[0] ?? 0) : AT_START;
      const problems = [problemAt("empty", at, `empty manifest (the kubelet says: ${KUBELET_EMPTY_MANIFEST})`), ...extraDocuments(docs, range)];
      return unlocated(problems);
    }

    const problems: DecodeProblem[] = [];
    for (const e of first.errors) problems.push(problemAt("syntax", range(e.pos[0], e.pos[1]), `invalid YAML: ${e.message}`));
    if (first.errors.length === 0) problems.push(...duplicateProblems(first));
    problems.push(...extraDocuments(docs, range));
    const located = { locate: makeLocator(first, text, pos), positionOf: makePositionOf(first, pos) };
    if (first.errors.length > 0) return { problems, ...located };

    try {
      return { value: plain(first.toJS({ maxAliasCount: 100 }), new Set()), problems, ...located };
    } catch (e) {
      const at = first.range?.[0] ?? 0;
      const why = e instanceof PlainError ? e.message : `the document cannot be decoded: ${errorMessage(e)}`;
      return { problems: [...problems, problemAt("undecodable", range(at, at), why)], ...located };
    }
  } catch (e) {
    // The parser and toJS recurse; absurd nesting can exhaust the stack.
    const why = e instanceof RangeError ? "the manifest is nested too deeply to decode" : `the manifest cannot be decoded: ${errorMessage(e)}`;
    return unlocated([problemAt("undecodable", AT_START, why)]);
  }
}

/**
 * Decodes the first YAML (or JSON) document of a manifest, or says why not: any problem at all is
 * an error here (the agent runs nothing doubtful). Never throws.
 */
export function decodeDocument(text: string, file: string): DecodeResult {
  const parsed = parseManifest(text);
  if (parsed.problems.length === 0) return { ok: true, value: parsed.value, positionOf: parsed.positionOf };
  // A document that cannot be turned into data is reported alone only when nothing else was wrong.
  const others = parsed.problems.filter((p) => p.code !== "undecodable");
  const problems = others.length > 0 ? others : parsed.problems;
  return { ok: false, errors: problems.map((p) => error(file, p.line, p.column, p.message)) };
}

/**
 * Keys that occur twice in one mapping, compared as the JSON keys they become (so `yes` and `true`
 * collide, as they would after the kubelet's YAML-to-JSON step). Walks the tree without recursion.
 */
function duplicateKeys(doc: Document): Array<{ key: string; start: number; end: number }> {
  const found: Array<{ key: string; start: number; end: number }> = [];
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
          const r = (pair.key as Node).range;
          if (keys.has(k)) found.push({ key: k, start: r?.[0] ?? 0, end: r?.[1] ?? 0 });
          keys.add(k);
        }
        stack.push(pair.value);
      }
    } else {
      for (const item of node.items) stack.push(item);
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** go-yaml decodes one document; any further non-empty document would be silently ignored. */
function extraDocuments(docs: Document[], range: (start: number, end: number) => SourceRange): DecodeProblem[] {
  const problems: DecodeProblem[] = [];
  for (const doc of docs.slice(1)) {
    if (isEmptyDocument(doc) && doc.errors.length === 0) continue;
    const start = doc.range?.[0] ?? 0;
    const at = range(start, start + 3);
    const message = `multi-document manifests are not supported: the kubelet reads only the first document; found another at line ${at.line}`;
    problems.push(problemAt("multiple-documents", at, message));
  }
  return problems;
}
