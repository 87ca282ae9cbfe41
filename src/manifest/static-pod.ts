// What the kubelet does to a decoded manifest to make it a static pod (pkg/kubelet/config/common.go
// applyDefaults): a UID that is a hash of the manifest and where it came from, the name suffixed with
// the node name, the default namespace, binding to this node, the config annotations, a toleration of
// every NoExecute taint for file pods, and phase Pending.
import type { Pod, Toleration } from "kubernetes-types/core/v1";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../api";
import type { PodOrigin } from "./types";

// FNV-1a, 128 bits (hash/fnv New128a), as eight 16-bit limbs, least significant first, held in
// locals: every intermediate stays a small integer, which the JIT keeps in registers (six times
// faster than limbs in an array or in doubles). The prime is 2^88 + 0x13b, so multiplying is a
// small product plus a shift by 88 bits (five limbs and 8 bits).
const FNV128_PRIME_LOW = 0x13b;

/** FNV-1a 128 over bytes; returns 32 lowercase hex digits (hex.EncodeToString(hasher.Sum(nil))). */
export function fnv128a(...chunks: Uint8Array[]): string {
  // The offset basis, 0x6c62272e07bb014262b821756295c58d.
  let a0 = 0xc58d,
    a1 = 0x6295,
    a2 = 0x2175,
    a3 = 0x62b8,
    a4 = 0x0142,
    a5 = 0x07bb,
    a6 = 0x272e,
    a7 = 0x6c62;
  const p = FNV128_PRIME_LOW;
  for (const bytes of chunks) {
    for (let n = 0; n < bytes.length; n++) {
      a0 ^= bytes[n]!;
      let t = a0 * p;
      const r0 = t & 0xffff;
      t = a1 * p + (t >>> 16);
      const r1 = t & 0xffff;
      t = a2 * p + (t >>> 16);
      const r2 = t & 0xffff;
      t = a3 * p + (t >>> 16);
      const r3 = t & 0xffff;
      t = a4 * p + (t >>> 16);
      const r4 = t & 0xffff;
      t = a5 * p + (t >>> 16);
      const r5 = t & 0xffff;
      t = a6 * p + (t >>> 16);
      const r6 = t & 0xffff;
      t = a7 * p + (t >>> 16);
      const r7 = t & 0xffff;
      const s5 = (a0 << 8) & 0xffff;
      const s6 = ((a1 << 8) | (a0 >>> 8)) & 0xffff;
      const s7 = ((a2 << 8) | (a1 >>> 8)) & 0xffff;
      a0 = r0;
      a1 = r1;
      a2 = r2;
      a3 = r3;
      a4 = r4;
      t = r5 + s5;
      a5 = t & 0xffff;
      t = r6 + s6 + (t >>> 16);
      a6 = t & 0xffff;
      t = r7 + s7 + (t >>> 16);
      a7 = t & 0xffff;
    }
  }
  return [a7, a6, a5, a4, a3, a2, a1, a0].map((limb) => limb.toString(16).padStart(4, "0")).join("");
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

// The UID check lives with the API's validators (src/api/validation.ts); re-exported for the manifest's callers.
export { MAX_POD_UID_LENGTH, podUIDProblem } from "../api";

/**
 * Whether the source's pods keep a uid written in their manifest. The kubelet keeps it for every
 * static pod (applyDefaults hashes only when it is empty); nodeagent keeps it only where the author
 * is the node's administrator (a file in the manifest directory) or the API server. A URL's or a
 * push's pod gets the hash whatever it says, so it can never take over another pod's UID, its
 * containers and its folders (issue 12).
 */
export function keepsManifestUID(source: PodOrigin["source"]): boolean {
  return source === "file" || source === "api";
}

/** The pod without metadata.uid (the same object when it has none). */
function withoutUID(pod: Pod): Pod {
  if (pod.metadata?.uid === undefined) return pod;
  const { uid: _ignored, ...metadata } = pod.metadata;
  return { ...pod, metadata };
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
    (a.key ?? "") === (t.key ?? "") &&
    (a.operator ?? "") === (t.operator ?? "") &&
    (a.value ?? "") === (t.value ?? "") &&
    (a.effect ?? "") === (t.effect ?? "");
  const i = tolerations.findIndex(same);
  if (i < 0) return [...tolerations, { ...t }];
  const out = tolerations.slice();
  out[i] = { ...t };
  return out;
}

/**
 * The kubelet's applyDefaults for a pod read from a source. The input is not changed: the metadata,
 * spec and status are new objects, and the nested ones they share with the input (containers,
 * volumes, …) are not touched. The UID is computed from the pod as given, so pass it decoded and
 * API-defaulted, before naming; `options.uid` stands in for it when the caller has no use for the hash.
 * A uid written in the pod is kept only for file (and API) pods (keepsManifestUID); for URL and pushed
 * pods it is ignored, left out of the hash too, so that writing one changes nothing.
 */
export function toStaticPod(pod: Pod, origin: PodOrigin, options: { uid?: string } = {}): Pod {
  const written = keepsManifestUID(origin.source) ? pod.metadata?.uid : undefined;
  const uid = written || options.uid || staticPodUID(withoutUID(pod), origin);
  const spec = { ...(pod.spec ?? { containers: [] }) };
  spec.nodeName = origin.nodeName;
  if (origin.source === "file") spec.tolerations = addOrUpdateToleration(spec.tolerations ?? [], FILE_POD_TOLERATION);
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      uid,
      // Pods pushed to the agent's API are not static pods: they keep the name they were given, as
      // pods from the API server do; only file and URL pods get the node suffix.
      name: origin.source === "push" || origin.source === "api" ? (pod.metadata?.name ?? "") : staticPodName(pod.metadata?.name ?? "", origin.nodeName),
      namespace: pod.metadata?.namespace || "default",
      annotations: { ...pod.metadata?.annotations, [CONFIG_HASH_ANNOTATION]: uid, [CONFIG_SOURCE_ANNOTATION]: origin.source },
    },
    spec,
    status: { ...pod.status, phase: "Pending" },
  };
}
