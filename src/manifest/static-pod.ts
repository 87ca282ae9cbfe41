// What the kubelet does to a decoded manifest to make it a static pod (pkg/kubelet/config/common.go
// applyDefaults): a UID that is a hash of the manifest and where it came from, the name suffixed with
// the node name, the default namespace, binding to this node, the config annotations, a toleration of
// every NoExecute taint for file pods, and phase Pending.
import type { Pod, Toleration } from "kubernetes-types/core/v1";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../config/types";
import type { PodOrigin } from "./types";

// FNV-1a, 128 bits (hash/fnv New128a): offset basis and prime, as 16-bit limbs, least significant first.
const FNV128_OFFSET = [0xc58d, 0x6295, 0x2175, 0x62b8, 0x0142, 0x07bb, 0x272e, 0x6c62];
/** The prime is 2^88 + 0x13b: multiplying is a shift by 88 bits plus a small product. */
const FNV128_PRIME_LOW = 0x13b;

/** FNV-1a 128 over bytes; returns 32 lowercase hex digits (hex.EncodeToString(hasher.Sum(nil))). */
export function fnv128a(...chunks: Uint8Array[]): string {
  const h = FNV128_OFFSET.slice();
  const r = new Array<number>(8).fill(0);
  for (const bytes of chunks) {
    for (let n = 0; n < bytes.length; n++) {
      h[0] = h[0]! ^ bytes[n]!;
      // r = h * 0x13b
      let carry = 0;
      for (let i = 0; i < 8; i++) {
        const t = h[i]! * FNV128_PRIME_LOW + carry;
        r[i] = t & 0xffff;
        carry = t >>> 16;
      }
      // h = r + (h << 88), mod 2^128; 88 bits = 5 limbs and 8 bits.
      const s5 = (h[0]! << 8) & 0xffff;
      const s6 = ((h[1]! << 8) | (h[0]! >>> 8)) & 0xffff;
      const s7 = ((h[2]! << 8) | (h[1]! >>> 8)) & 0xffff;
      carry = 0;
      for (let i = 0; i < 8; i++) {
        const t = r[i]! + (i === 5 ? s5 : i === 6 ? s6 : i === 7 ? s7 : 0) + carry;
        h[i] = t & 0xffff;
        carry = t >>> 16;
      }
    }
  }
  let hex = "";
  for (let i = 7; i >= 0; i--) hex += h[i]!.toString(16).padStart(4, "0");
  return hex;
}

/** JSON with object keys sorted at every level, so that equal objects serialise to equal bytes. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : stableStringify(v))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(record).sort()) {
    if (record[k] === undefined) continue;
    parts.push(`${JSON.stringify(k)}:${stableStringify(record[k])}`);
  }
  return `{${parts.join(",")}}`;
}

/**
 * The UID the kubelet gives a static pod without one: FNV-128a over the decoded, defaulted pod, then
 * "host:<node>" and "file:<path>" for file pods, or "url:<url>" for the others (the kubelet writes no
 * node name for URL pods). Any edit of the manifest gives a new UID, so an edited static pod is a new
 * pod. The kubelet hashes the Go object with DeepHashObject (spew); byte compatibility with it is not
 * attempted: a node moving from the kubelet to nodeagent sees new UIDs once.
 */
export function staticPodUID(pod: Pod, origin: PodOrigin): string {
  const encoder = new TextEncoder();
  const tail = origin.source === "file" ? `host:${origin.nodeName}file:${origin.location}` : `url:${origin.location}`;
  return fnv128a(encoder.encode(stableStringify(pod)), encoder.encode(tail));
}

/** generatePodName: "<name>-<lowercased node name>". */
export function staticPodName(name: string, nodeName: string): string {
  return `${name}-${nodeName.toLowerCase()}`;
}

/** Tolerates every NoExecute taint, so node problems never evict a static pod. */
const FILE_POD_TOLERATION: Toleration = { operator: "Exists", effect: "NoExecute" };

/** helper.AddOrUpdateTolerationInPod: replace a matching toleration (key, operator, value, effect), else append. */
function addOrUpdateToleration(tolerations: Toleration[], t: Toleration): Toleration[] {
  const same = (a: Toleration): boolean =>
    (a.key ?? "") === (t.key ?? "") && (a.operator ?? "") === (t.operator ?? "") && (a.value ?? "") === (t.value ?? "") && (a.effect ?? "") === (t.effect ?? "");
  const i = tolerations.findIndex(same);
  if (i < 0) return [...tolerations, { ...t }];
  const out = tolerations.slice();
  out[i] = { ...t };
  return out;
}

/**
 * The kubelet's applyDefaults for a pod read from a source, on a copy: the input is not changed.
 * The UID is computed from the pod as given, so pass it decoded and API-defaulted, before naming.
 */
export function toStaticPod(pod: Pod, origin: PodOrigin): Pod {
  const copy = structuredClone(pod);
  const uid = copy.metadata?.uid || staticPodUID(pod, origin);
  const spec = copy.spec ?? { containers: [] };
  spec.nodeName = origin.nodeName;
  if (origin.source === "file") spec.tolerations = addOrUpdateToleration(spec.tolerations ?? [], FILE_POD_TOLERATION);
  return {
    ...copy,
    metadata: {
      ...copy.metadata,
      uid,
      // Pods pushed to the agent's API are not static pods: they keep the name they were given, as
      // pods from the API server do; only file and URL pods get the node suffix.
      name: origin.source === "api" ? (copy.metadata?.name ?? "") : staticPodName(copy.metadata?.name ?? "", origin.nodeName),
      namespace: copy.metadata?.namespace || "default",
      annotations: { ...copy.metadata?.annotations, [CONFIG_HASH_ANNOTATION]: uid, [CONFIG_SOURCE_ANNOTATION]: origin.source },
    },
    spec,
    status: { ...copy.status, phase: "Pending" },
  };
}
