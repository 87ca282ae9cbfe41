// The pure half of node status reporting: what the agent's Node looks like once its freshly built
// status is laid over the API's copy, whether that changed anything that matters, and the strategic
// merge patch that carries the difference (k/k pkg/kubelet/kubelet_node_status.go, nodestatus/setters.go,
// component-helpers/node/util PatchNodeStatus).
import type { Node, NodeCondition, NodeStatus } from "kubernetes-types/core/v1";
import { isExtendedResourceName } from "../api";

/** The agent's own verdict on its health (PLEG relisting, sync loop), as the kubelet's health checks give it. */
export interface NodeHealth {
  ready: boolean;
  /** Why not, e.g. "PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s". */
  message: string;
}

/** The condition types the agent owns; others (NetworkUnavailable, a problem detector's) are left as they are. */
export const OWNED_CONDITIONS = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"];

/**
 * Labels the kubelet keeps in step with the host on a node that already exists (updateDefaultLabels);
 * every other label on the API's Node is someone else's and is kept.
 */
export const DEFAULT_LABELS = [
  "kubernetes.io/hostname",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
];

/**
 * The Ready condition with the agent's health folded in. The runtime's own errors (already in the
 * built condition) come first, then the health message, aggregated the way utilerrors prints several
 * errors: "[a, b]" — as the kubelet's ReadyCondition setter does with "PLEG is not healthy: …".
 */
export function applyHealth(ready: NodeCondition, health: NodeHealth): NodeCondition {
  if (health.ready) return ready;
  const errors = ready.status === "True" ? [] : unwrapAggregate(ready.message ?? "");
  if (!errors.includes(health.message)) errors.push(health.message);
  const message = errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`;
  return { ...ready, status: "False", reason: "KubeletNotReady", message };
}

function unwrapAggregate(message: string): string[] {
  if (message === "") return [];
  return message.startsWith("[") && message.endsWith("]") ? message.slice(1, -1).split(", ") : [message];
}

/**
 * The API's Node with the agent's status laid over it, as the kubelet's setters write into the Node they
 * just fetched: capacity and allocatable key by key (other keys stay), addresses, daemon endpoints, node
 * info and images replaced, the owned conditions replaced with lastHeartbeatTime = now and
 * lastTransitionTime kept while the status is unchanged (setters.go: the transition time moves only when
 * the status flips). Spec and metadata are the API's.
 */
export function withReportedStatus(api: Node, built: Node, health: NodeHealth, now: string): Node {
  const status: NodeStatus = structuredClone(api.status ?? {});
  const fresh = built.status ?? {};
  status.capacity = { ...status.capacity, ...fresh.capacity };
  status.allocatable = { ...status.allocatable, ...fresh.allocatable };
  if (fresh.addresses) status.addresses = fresh.addresses;
  if (fresh.daemonEndpoints) status.daemonEndpoints = fresh.daemonEndpoints;
  if (fresh.nodeInfo) status.nodeInfo = fresh.nodeInfo;
  if (fresh.images) status.images = fresh.images;
  // status.features (1.31+, not in kubernetes-types 1.30): set only when the runtime reports features.
  const features = (fresh as { features?: unknown }).features;
  if (features) (status as { features?: unknown }).features = features;

  const conditions = [...(status.conditions ?? [])];
  for (const type of OWNED_CONDITIONS) {
    let next = fresh.conditions?.find((c) => c.type === type);
    if (!next) continue;
    if (type === "Ready") next = applyHealth(next, health);
    const i = conditions.findIndex((c) => c.type === type);
    const prev = i >= 0 ? conditions[i] : undefined;
    const lastTransitionTime = prev && prev.status === next.status && prev.lastTransitionTime ? prev.lastTransitionTime : now;
    const condition: NodeCondition = { ...next, lastHeartbeatTime: now, lastTransitionTime };
    if (i >= 0) conditions[i] = condition;
    else conditions.push(condition);
  }
  status.conditions = conditions;
  return { ...api, status };
}

/**
 * What re-registration changes on a Node that already exists (tryRegisterWithAPIServer after
 * AlreadyExists): the default labels follow the host (an empty value removes the label), extended
 * resources are zeroed until their device plugins report again (reconcileExtendedResource), and
 * capacity/allocatable are filled in when the API's copy has none (updateDefaultResources). Everything
 * else — other labels, annotations, taints, spec, other conditions — is the cluster's and is kept.
 * Returns undefined when nothing needs changing.
 */
export function reconcileExistingNode(existing: Node, initial: Node): Node | undefined {
  const node: { -readonly [K in keyof Node]: Node[K] } = structuredClone(existing);
  let changed = false;

  const labels = { ...node.metadata?.labels };
  for (const key of DEFAULT_LABELS) {
    const want = initial.metadata?.labels?.[key];
    if (want === undefined) continue;
    if (labels[key] !== want) changed = true;
    if (want === "") delete labels[key];
    else labels[key] = want;
  }
  node.metadata = { ...node.metadata, labels };

  const status = (node.status ??= {});
  for (const field of ["capacity", "allocatable"] as const) {
    if (Object.keys(status[field] ?? {}).length === 0 && initial.status?.[field]) {
      status[field] = { ...initial.status[field] };
      changed = true;
    }
  }
  for (const name of Object.keys(status.capacity ?? {})) {
    if (!isExtendedResourceName(name) || status.capacity![name] === "0") continue;
    status.capacity![name] = "0";
    if (status.allocatable) status.allocatable[name] = "0";
    changed = true;
  }
  return changed ? node : undefined;
}

/** nodeStatusHasChanged: any difference but the conditions' heartbeat times. */
export function nodeStatusChanged(before: NodeStatus | undefined, after: NodeStatus | undefined): boolean {
  const strip = (s: NodeStatus | undefined): NodeStatus =>
    withoutEmpty({
      ...s,
      conditions: [...(s?.conditions ?? [])].map(({ lastHeartbeatTime: _, ...rest }) => rest).sort((a, b) => a.type.localeCompare(b.type)),
    }) as NodeStatus;
  return diff(strip(before), strip(after), "status") !== undefined;
}

/**
 * The value as the API server gives it back: NodeStatus's fields are `omitempty`, so an empty list or map
 * (a node with no images: `images: []`) or a null is not stored, and reads back absent. Compared as
 * written, every status built would differ from the API's copy and be sent again each period.
 */
function withoutEmpty(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, x] of Object.entries(v)) {
    const y = withoutEmpty(x);
    if (y === null || y === undefined || (Array.isArray(y) && y.length === 0) || (isMap(y) && Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}

type Json = unknown;
type JsonMap = { [key: string]: Json };

/**
 * The strategic merge patch from `before` to `after` (metadata and status; spec is left out as
 * PatchNodeStatus does), with only what changed: changed map keys, null for removed keys, conditions
 * merged by type, other lists whole. Addresses are replaced as a whole list with `$patch: replace`:
 * NodeStatus.addresses is tagged merge-by-type, which would keep a stale address of the same type,
 * and the kubelet patches it the same way. `metadata.uid` is sent as a precondition, so a Node deleted
 * and recreated meanwhile is never patched by mistake. Undefined when there is nothing to send.
 */
export function nodeStatusPatch(before: Node, after: Node): JsonMap | undefined {
  const patch: JsonMap = {};
  const metadata = diff(before.metadata ?? {}, after.metadata ?? {}, "metadata");
  const status = diff(before.status ?? {}, after.status ?? {}, "status");
  if (metadata === undefined && status === undefined) return undefined;
  patch.metadata = { ...(metadata as JsonMap | undefined), ...(before.metadata?.uid ? { uid: before.metadata.uid } : {}) };
  if (status !== undefined) patch.status = status;
  return patch;
}

const isMap = (v: Json): v is JsonMap => typeof v === "object" && v !== null && !Array.isArray(v);

function equal(a: Json, b: Json): boolean {
  return diff(a, b, "") === undefined;
}

/** The patch that turns `a` into `b`, or undefined when they are the same. */
function diff(a: Json, b: Json, path: string): Json | undefined {
  if (isMap(a) && isMap(b)) {
    const out: JsonMap = {};
    for (const [key, value] of Object.entries(b)) {
      if (value === undefined) continue;
      const d = key in a && a[key] !== undefined ? diff(a[key], value, `${path}.${key}`) : value;
      if (d !== undefined) out[key] = d;
    }
    for (const key of Object.keys(a)) if (a[key] !== undefined && (!(key in b) || b[key] === undefined)) out[key] = null;
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (path === "status.conditions") return diffByKey(a, b, "type");
    if (a.length === b.length && a.every((x, i) => equal(x, b[i]))) return undefined;
    if (path === "status.addresses" && a.length > 0) return [...b, { $patch: "replace" }];
    return b;
  }
  return a === b ? undefined : b;
}

/** A list merged element by element on `key`: changed elements with their key, removed ones as `$patch: delete`. */
function diffByKey(a: Json[], b: Json[], key: string): Json[] | undefined {
  const keyOf = (x: Json) => (isMap(x) ? x[key] : undefined);
  const out: Json[] = [];
  for (const item of b) {
    const old = a.find((x) => keyOf(x) === keyOf(item));
    const d = old === undefined ? item : diff(old, item, "");
    if (d !== undefined) out.push({ ...(d as JsonMap), [key]: keyOf(item) });
  }
  for (const item of a) if (!b.some((x) => keyOf(x) === keyOf(item))) out.push({ [key]: keyOf(item), $patch: "delete" });
  return out.length > 0 ? out : undefined;
}
