// The downward API: pod fields and container resources as strings, for environment variables
// (valueFrom.fieldRef / resourceFieldRef) and for downwardAPI volumes and projected downwardAPI
// sources (src/volume/downward-api.ts makes their files from these). One implementation for both, as
// the kubelet shares pkg/fieldpath and pkg/api/v1/resource/helpers.go between
// makeEnvironmentVariables and the downwardAPI plugin:
// - metadata fields (name, namespace, uid, labels, annotations, subscripted labels/annotations) come
//   from fieldpath.ExtractFieldPathAsString, whose whole-map form is FormatMap (sorted `key="value"`
//   lines, the value Go-quoted, no trailing newline);
// - env adds the runtime fields (spec.nodeName, spec.serviceAccountName, status.hostIP(s),
//   status.podIP(s)), the kubelet's podFieldSelectorRuntimeValue;
// - resourceFieldRef is ExtractContainerResourceValue: ceil(quantity / divisor), CPU in milli-units,
//   with limits the container does not set taken from the node's allocatable
//   (MergeContainerResourceLimits, defaultPodLimitsForDownwardAPI).
import type { Container, Pod, ResourceFieldSelector } from "kubernetes-types/core/v1";
import { parseQuantity, podRef, type Quantity } from "../api";

/** What a downward API value of a running pod needs beyond the pod object. */
export interface DownwardContext {
  /** The node's name, for spec.nodeName when the pod (a static pod) does not carry one. */
  nodeName: string;
  /** The node's IP (status.hostIP): the Node's first InternalIP. */
  hostIP: string;
  /** The Node's InternalIPs, hostIP first (status.hostIPs); [hostIP] when not given. */
  hostIPs?: readonly string[];
}

/** A field path or resource the downward API does not offer; the kubelet's message. */
export class DownwardAPIError extends Error {
  override name = "DownwardAPIError";
}

/** A Go %q rune: printable runes as they are, the rest escaped as strconv.Quote does. */
function quoteRune(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"';
    case "\\":
      return "\\\\";
    case "\x07":
      return "\\a";
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\v":
      return "\\v";
  }
  // unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
  if (ch === " " || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, "0")}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, "0")}`;
  return `\\U${cp.toString(16).padStart(8, "0")}`;
}

/** Go's strconv.Quote (fmt %q) of a string. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoteRune(ch);
  return `${out}"`;
}

/** fieldpath.FormatMap: `key="value"` lines, keys sorted (byte order), no trailing newline. */
export function formatMap(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return keys.map((k) => `${k}=${goQuote(m![k]!)}`).join("\n");
}

/** fieldpath.SplitMaybeSubscriptedPath: "metadata.labels['app']" → ["metadata.labels", "app"]. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const s = fieldPath.slice(0, -2);
  const at = s.indexOf("['");
  if (at <= 0) return undefined;
  return [s.slice(0, at), s.slice(at + 2)];
}

/**
 * fieldpath.ExtractFieldPathAsString for a pod: the metadata fields, the only ones a downwardAPI volume
 * may name. The namespace is defaulted as everywhere else ("default" for a static pod without one).
 * @throws DownwardAPIError `unsupported fieldPath: X`, or `fieldPath "X" does not support subscript`
 */
export function metadataFieldValue(pod: Pod, fieldPath: string): string {
  const md = pod.metadata ?? {};
  const sub = splitSubscript(fieldPath);
  if (sub) {
    const [path, key] = sub;
    if (path === "metadata.annotations") return md.annotations?.[key] ?? "";
    if (path === "metadata.labels") return md.labels?.[key] ?? "";
    throw new DownwardAPIError(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
  }
  switch (fieldPath) {
    case "metadata.annotations":
      return formatMap(md.annotations);
    case "metadata.labels":
      return formatMap(md.labels);
    case "metadata.name":
      return md.name ?? "";
    case "metadata.namespace":
      return podRef(pod).namespace;
    case "metadata.uid":
      return md.uid ?? "";
  }
  throw new DownwardAPIError(`unsupported fieldPath: ${fieldPath}`);
}

/**
 * An env var's fieldRef (the kubelet's podFieldSelectorRuntimeValue): the runtime fields, then the
 * metadata ones. status.podIPs and status.hostIPs are comma-joined lists; a host-network pod's IP is
 * the node's, as the kubelet reports it. `podIPs` are the sandbox's IPs, the first being status.podIP.
 * @throws DownwardAPIError for a field the downward API does not offer
 */
export function envFieldValue(pod: Pod, fieldPath: string, ctx: DownwardContext, podIPs: readonly string[]): string {
  const hostIPs = ctx.hostIPs?.length ? ctx.hostIPs : [ctx.hostIP];
  const ips = pod.spec?.hostNetwork ? hostIPs : podIPs.filter((ip) => ip !== "");
  switch (fieldPath) {
    case "spec.nodeName":
      return pod.spec?.nodeName || ctx.nodeName;
    case "spec.serviceAccountName":
      return pod.spec?.serviceAccountName ?? "";
    case "status.hostIP":
      return ctx.hostIP;
    case "status.hostIPs":
      return hostIPs.join(",");
    case "status.podIP":
      return ips[0] ?? "";
    case "status.podIPs":
      return ips.join(",");
  }
  return metadataFieldValue(pod, fieldPath);
}

/** A resource list as the node reports it (status.allocatable): name → quantity. */
export type ResourceList = Record<string, string | number>;

/** The resources whose missing limit is the node's allocatable (MergeContainerResourceLimits; hugepages never). */
const DEFAULTED_LIMITS = ["cpu", "memory", "ephemeral-storage"];

/** The container's quantity for `limits.X` / `requests.X`, limits defaulted from the node's allocatable. */
function containerQuantity(c: Container, kind: "limits" | "requests", name: string, allocatable: ResourceList | undefined): Quantity {
  const set = c.resources?.[kind]?.[name];
  const q = set === undefined ? undefined : parseQuantity(set);
  if (kind === "limits" && (q === undefined || q.isZero()) && DEFAULTED_LIMITS.includes(name)) {
    const cap = allocatable?.[name];
    if (cap !== undefined) return parseQuantity(cap);
  }
  return q ?? parseQuantity(0);
}

/**
 * resource.ExtractContainerResourceValue after MergeContainerResourceLimits: `limits.cpu`,
 * `requests.memory`, `limits.hugepages-2Mi`… as ceil(quantity / divisor), CPU counted in milli-units,
 * an unset or zero divisor meaning 1.
 * @throws DownwardAPIError `unsupported container resource : X` (the kubelet's text, space included)
 */
export function resourceFieldValue(c: Container, sel: ResourceFieldSelector, allocatable?: ResourceList): string {
  const dot = sel.resource.indexOf(".");
  const kind = sel.resource.slice(0, dot);
  const name = sel.resource.slice(dot + 1);
  const supported = ["cpu", "memory", "ephemeral-storage"].includes(name) || name.startsWith("hugepages-");
  if (dot < 0 || (kind !== "limits" && kind !== "requests") || !supported) {
    throw new DownwardAPIError(`unsupported container resource : ${sel.resource}`);
  }
  const given = sel.divisor === undefined ? undefined : parseQuantity(sel.divisor);
  const divisor = given === undefined || given.isZero() ? parseQuantity(1) : given;
  const q = containerQuantity(c, kind, name, allocatable);
  const value = name === "cpu" ? Math.ceil(q.milli() / divisor.milli()) : Math.ceil(q.value() / divisor.value());
  return String(value);
}
