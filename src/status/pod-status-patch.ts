// The body of PATCH pods/<name>/status: a two-way strategic merge patch of the status the API server has
// against the status the agent wants, carrying metadata.uid so that the API server refuses it (409) for
// a pod recreated under the same name. This is what the kubelet's statusutil.PatchPodStatus sends
// (strategicpatch.CreateTwoWayMergePatch of {metadata.uid, status} old vs new), for PodStatus only.
import type { PodStatus } from "kubernetes-types/core/v1";
import { apiTime } from "../util";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

/** Lists of PodStatus merged element by element (`patchMergeKey` in k8s.io/api/core/v1 types.go). */
const STATUS_MERGE_KEYS: Readonly<Record<string, string>> = {
  conditions: "type",
  podIPs: "ip",
  hostIPs: "ip",
  resourceClaimStatuses: "name",
};

export interface StatusPatch {
  metadata: { uid: string };
  status: JsonMap;
}

/**
 * The patch that turns `old` into `next`, or undefined when they are equal. Fields `next` lacks are
 * deleted (null), changed lists with a merge key send only the changed elements plus the
 * `$setElementOrder/` directive, other lists are sent whole.
 */
export function podStatusPatch(uid: string, old: PodStatus | undefined, next: PodStatus): StatusPatch | undefined {
  const status = diffMap(asMap(wireJson(old ?? {})), asMap(wireJson(next)), STATUS_MERGE_KEYS);
  return Object.keys(status).length ? { metadata: { uid }, status } : undefined;
}

/**
 * A value as the API server's JSON has it: Dates (client-node's models) as RFC 3339 in whole seconds,
 * the precision of metav1.Time, and undefined fields dropped. Informer caches hold both shapes (model
 * objects from a list, plain JSON from the watch), so both sides of a diff go through this first.
 *
 * A field that is null is dropped too: decoded into the API's Go types, null and absent are the same
 * zero value (a condition's `lastProbeTime: null`, which the kubelet and the agent send and the API
 * server answers with, or leaves out). Kept, such a field made every diff against a copy without it
 * non-empty, and the status of every pod was PATCHed again at each 10 s batch.
 *
 * So is an empty map: the API's structs (a container's `lastState`, `resources`) read back as `{}` from a
 * real server whether they were sent empty, absent or null — and a diff of absent against `{}` sent
 * `lastState: null` at every batch, for every running container, against kube-apiserver 1.36.
 */
export function wireJson(value: unknown): Json {
  if (value instanceof Date) return apiTime(value.getTime());
  if (Array.isArray(value)) return value.map((v) => wireJson(v ?? null));
  if (value !== null && typeof value === "object") {
    const out: JsonMap = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || v === null) continue;
      const w = wireJson(v);
      if (isMap(w) && Object.keys(w).length === 0) continue;
      out[k] = w;
    }
    return out;
  }
  return (value ?? null) as Json;
}

export function sameJson(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

const isMap = (v: Json | undefined): v is JsonMap => v !== null && typeof v === "object" && !Array.isArray(v);
const asMap = (v: Json): JsonMap => (isMap(v) ? v : {});

function diffMap(old: JsonMap, next: JsonMap, mergeKeys: Readonly<Record<string, string>> = {}): JsonMap {
  const patch: JsonMap = {};
  for (const [key, value] of Object.entries(next)) {
    const before = old[key];
    if (sameJson(before, value)) continue;
    const mergeKey = mergeKeys[key];
    if (isMap(before) && isMap(value)) patch[key] = diffMap(before, value);
    else if (mergeKey && Array.isArray(value) && Array.isArray(before)) Object.assign(patch, diffMergeList(key, mergeKey, before, value));
    else if (Array.isArray(value) && Array.isArray(before)) patch[key] = value.map((e) => withDeletions(before, e));
    else patch[key] = value;
  }
  for (const key of Object.keys(old)) if (!(key in next)) patch[key] = null;
  return patch;
}

/** A merge-keyed list: changed and new elements, deleted ones as `$patch: delete`, and the new order. */
function diffMergeList(field: string, mergeKey: string, old: Json[], next: Json[]): JsonMap {
  const keyOf = (e: Json) => (isMap(e) ? e[mergeKey] : e);
  const elements: Json[] = [];
  for (const element of next) {
    const before = old.find((o) => sameJson(keyOf(o), keyOf(element)));
    if (before === undefined || !isMap(before) || !isMap(element)) elements.push(element);
    else {
      const d = diffMap(before, element);
      if (Object.keys(d).length) elements.push({ [mergeKey]: element[mergeKey] ?? null, ...d });
    }
  }
  for (const before of old) {
    if (!next.some((e) => sameJson(keyOf(e), keyOf(before)))) elements.push({ [mergeKey]: keyOf(before) ?? null, $patch: "delete" });
  }
  const out: JsonMap = { [`$setElementOrder/${field}`]: next.map((e) => ({ [mergeKey]: keyOf(e) ?? null })) };
  if (elements.length) out[field] = elements;
  return out;
}

/**
 * An element of a list sent whole (containerStatuses and initContainerStatuses are atomic lists), with
 * `null` for what the same-named element had and this one has not (a container's `state.waiting` once it
 * runs). A server that replaces the list, as kube-apiserver does, decodes null as absent, so the result
 * is the same; one that merges the list by name (the project's test API server does) would otherwise
 * keep `waiting` beside `running`.
 */
function withDeletions(oldList: Json[], element: Json): Json {
  if (!isMap(element) || typeof element.name !== "string") return element;
  const before = oldList.find((o) => isMap(o) && o.name === element.name);
  return isMap(before) ? nullsForRemoved(before, element) : element;
}

function nullsForRemoved(before: JsonMap, after: JsonMap): JsonMap {
  const out: JsonMap = { ...after };
  for (const [k, v] of Object.entries(before)) {
    const now = after[k];
    if (now === undefined) out[k] = null;
    else if (isMap(v) && isMap(now)) out[k] = nullsForRemoved(v, now);
  }
  return out;
}
