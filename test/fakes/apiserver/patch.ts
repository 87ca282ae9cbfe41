// The three patch types a client may send (apiserver's patchResource):
// - JSON merge patch, RFC 7386: maps merge, null deletes, lists are replaced whole.
// - strategic merge patch (k8s.io/apimachinery/pkg/util/strategicpatch): like merge patch, but lists
//   with a patchMergeKey in the Go types merge element by element, `patchStrategy:"merge"` lists of
//   scalars merge as sets, and the `$patch`, `$setElementOrder/`, `$deleteFromPrimitiveList/` and
//   `$retainKeys` directives apply. Only the merge keys of the types served here are known.
// - JSON patch, RFC 6902.
import { clone, isPlainObject } from "./objects";

type Json = unknown;
type JsonMap = Record<string, Json>;

export function mergePatch(target: Json, patch: Json): Json {
  if (!isPlainObject(patch)) return clone(patch);
  const out: JsonMap = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * List merge keys by kind and field path (the `patchMergeKey` struct tags of core/v1 and meta/v1).
 * Lists not named here are atomic and replaced whole: containerStatuses and the other container status
 * lists, and node taints, carry no merge key upstream.
 */
const MERGE_KEYS: Record<string, Record<string, string>> = {
  common: {
    "metadata.ownerReferences": "uid",
    "metadata.finalizers": "",
  },
  Pod: {
    "spec.containers": "name",
    "spec.initContainers": "name",
    "spec.ephemeralContainers": "name",
    "spec.volumes": "name",
    "spec.containers.env": "name",
    "spec.containers.ports": "containerPort",
    "spec.containers.volumeMounts": "mountPath",
    "status.conditions": "type",
    "status.podIPs": "ip",
    "status.hostIPs": "ip",
  },
  Node: {
    "spec.podCIDRs": "",
    "status.conditions": "type",
    "status.addresses": "type",
  },
};

/** A `""` merge key marks a list of scalars merged as a set. */
function mergeKeyOf(kind: string, path: string): string | undefined {
  return MERGE_KEYS[kind]?.[path] ?? MERGE_KEYS.common![path];
}

export class PatchError extends Error {}

export function strategicMergePatch(target: Json, patch: Json, kind: string): Json {
  if (!isPlainObject(patch)) throw new PatchError("strategic merge patch must be a JSON object");
  return mergeMap(isPlainObject(target) ? target : {}, patch, kind, "");
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

function mergeMap(original: JsonMap, patch: JsonMap, kind: string, path: string): JsonMap {
  if (patch.$patch === "replace") return stripDirectives(patch) as JsonMap;
  const out: JsonMap = { ...original };
  const orders: Array<[string, Json[]]> = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === "$patch" || key === "$retainKeys") continue;
    if (key.startsWith("$setElementOrder/")) {
      orders.push([key.slice("$setElementOrder/".length), Array.isArray(value) ? value : []]);
      continue;
    }
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const field = key.slice("$deleteFromPrimitiveList/".length);
      const drop = new Set((Array.isArray(value) ? value : []).map((v) => JSON.stringify(v)));
      if (Array.isArray(out[field])) out[field] = (out[field] as Json[]).filter((v) => !drop.has(JSON.stringify(v)));
      continue;
    }
    const p = child(path, key);
    if (value === null) delete out[key];
    else if (isPlainObject(value)) {
      if (value.$patch === "delete") delete out[key];
      else out[key] = mergeMap(isPlainObject(out[key]) ? (out[key] as JsonMap) : {}, value, kind, p);
    } else if (Array.isArray(value)) out[key] = mergeList(Array.isArray(out[key]) ? (out[key] as Json[]) : [], value, kind, p);
    else out[key] = value;
  }
  for (const [field, order] of orders)
    if (Array.isArray(out[field])) out[field] = applyOrder(out[field] as Json[], order, mergeKeyOf(kind, child(path, field)));
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as string[]);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

function mergeList(original: Json[], patch: Json[], kind: string, path: string): Json[] {
  const key = mergeKeyOf(kind, path);
  if (key === undefined) return stripDirectives(patch) as Json[];
  if (key === "") {
    // A set of scalars: the union, original order first.
    const seen = new Set(original.map((v) => JSON.stringify(v)));
    return [...original, ...patch.filter((v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v)))];
  }
  // `{"$patch": "replace"}` as an element: the list becomes the patch's other elements.
  if (patch.some((e) => isPlainObject(e) && e.$patch === "replace" && Object.keys(e).length === 1)) {
    return stripDirectives(patch.filter((e) => !(isPlainObject(e) && e.$patch === "replace"))) as Json[];
  }
  const out = [...original];
  for (const element of patch) {
    if (!isPlainObject(element)) throw new PatchError(`${path}: elements of a list merged by ${key} must be objects`);
    const at = out.findIndex((o) => isPlainObject(o) && o[key] === element[key]);
    if (element.$patch === "delete") {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = mergeMap(out[at] as JsonMap, element, kind, path);
    else out.push(stripDirectives(element));
  }
  return out;
}

/** Orders a merged list as `$setElementOrder` says; elements it does not name keep their relative order, last. */
function applyOrder(list: Json[], order: Json[], key: string | undefined): Json[] {
  const id = (v: Json) => JSON.stringify(key && isPlainObject(v) ? v[key] : v);
  const rank = new Map(order.map((o, i) => [JSON.stringify(key && isPlainObject(o) ? o[key] : o), i]));
  return list
    .map((v, i) => ({ v, i, r: rank.get(id(v)) ?? order.length + i }))
    .sort((a, b) => a.r - b.r)
    .map((e) => e.v);
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isPlainObject(v)) return v;
  const out: JsonMap = {};
  // A null inside a value that replaces or adds is what decoding into Go structs makes of it: absent.
  for (const [k, x] of Object.entries(v)) if (!k.startsWith("$") && x !== null) out[k] = stripDirectives(x);
  return out;
}

interface JsonPatchOp {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  from?: string;
  value?: Json;
}

export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw new PatchError("json patch must be an array of operations");
  let doc = clone(target);
  for (const raw of ops as JsonPatchOp[]) {
    switch (raw.op) {
      case "add":
        doc = put(doc, raw.path, clone(raw.value), "add");
        break;
      case "replace":
        doc = put(doc, raw.path, clone(raw.value), "replace");
        break;
      case "remove":
        doc = remove(doc, raw.path);
        break;
      case "move": {
        const value = read(doc, raw.from ?? "");
        doc = put(remove(doc, raw.from ?? ""), raw.path, value, "add");
        break;
      }
      case "copy":
        doc = put(doc, raw.path, clone(read(doc, raw.from ?? "")), "add");
        break;
      case "test":
        if (JSON.stringify(read(doc, raw.path)) !== JSON.stringify(raw.value)) throw new PatchError(`testing value ${raw.path} failed`);
        break;
      default:
        throw new PatchError(`unexpected kind: ${JSON.stringify((raw as { op?: unknown }).op)}`);
    }
  }
  return doc;
}

function pointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new PatchError(`invalid JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function parentOf(doc: Json, path: string): { parent: Json; last: string } {
  const parts = pointer(path);
  const last = parts.pop();
  if (last === undefined) throw new PatchError("cannot operate on the document root");
  let parent = doc;
  for (const p of parts) {
    parent = isPlainObject(parent) || Array.isArray(parent) ? (parent as Record<string, Json>)[p] : undefined;
    if (parent === undefined) throw new PatchError(`doc is missing path: ${path}`);
  }
  return { parent, last };
}

function read(doc: Json, path: string): Json {
  let cur = doc;
  for (const p of pointer(path)) {
    cur = isPlainObject(cur) || Array.isArray(cur) ? (cur as Record<string, Json>)[p] : undefined;
    if (cur === undefined) throw new PatchError(`doc is missing path: ${path}`);
  }
  return cur;
}

function put(doc: Json, path: string, value: Json, mode: "add" | "replace"): Json {
  if (path === "") return value;
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const i = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (mode === "replace" && i >= parent.length)) throw new PatchError(`index out of range: ${path}`);
    parent.splice(i, mode === "replace" ? 1 : 0, value);
  } else if (isPlainObject(parent)) {
    if (mode === "replace" && !(last in parent)) throw new PatchError(`replace operation does not apply: doc is missing key: ${path}`);
    parent[last] = value;
  } else throw new PatchError(`doc is missing path: ${path}`);
  return doc;
}

function remove(doc: Json, path: string): Json {
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw new PatchError(`index out of range: ${path}`);
    parent.splice(i, 1);
  } else if (isPlainObject(parent) && last in parent) delete parent[last];
  else throw new PatchError(`remove operation does not apply: doc is missing path: ${path}`);
  return doc;
}
