// PodConfig: merges the sources' snapshots into per-source ADD / UPDATE / DELETE / REMOVE / RECONCILE
// operations, the way the kubelet's podStorage does in its incremental notification mode
// (pkg/kubelet/config/config.go). Each source delivers its full set (the kubelet's SET); the merge
// works out what changed since that source's previous set.
//
// Past the kubelet: one pod identity, one source. The kubelet keys its pods by UID across sources,
// so a source that names another source's UID (or full name) updates or shadows that pod; with a
// push API and a URL anyone can feed, that is a takeover (issue 12: a pushed pod with a static pod's
// UID killed the static pod's container and ran in its sandbox). Here a pod whose UID or
// namespace/name another source already holds is refused: left out of its source's set and reported
// as that source's error, like a duplicate name within a source. The refused pod is not forgotten:
// each source's last snapshot is kept, and when the holder goes, the sources with refused pods are
// merged again, so the pod is admitted then (first come, first served; nothing waits for a new SET).
// A UID that cannot be used in a path (podUIDProblem) is refused the same way, whatever the source.
import type { Pod } from "kubernetes-types/core/v1";
import { CONFIG_MIRROR_ANNOTATION, CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION, podKey } from "../api";
import { type ManifestError, type PodSourceName, podUIDProblem } from "../manifest";
import type { Clock, Logger } from "../util";
import type { PodOperation, PodUpdate, SourceReport } from "./types";

// SourceReport lives in types.ts (which imports nothing back from here); the sources import it from here.
export type { SourceReport } from "./types";

export interface PodConfigOptions {
  clock: Clock;
  log: Logger;
}

export type PodUpdateListener = (update: PodUpdate) => void;

/** Why a pod cannot be admitted for a source: another source holds its UID or its full name. */
export interface PodConflict {
  /** The field that collides: metadata.uid or metadata.name (the namespace/name pair). */
  field: "metadata.uid" | "metadata.name";
  /** The source that holds it, and the pod it holds it with. */
  holder: PodSourceName;
  holderUid: string;
  holderName: string;
  /** "pod default/web-node1 is held by source file (UID 0f…)", or the same for a UID. */
  message: string;
}

/** Annotations the agent itself adds; a source never sets them, so they never make a pod differ. */
const LOCAL_ANNOTATIONS: readonly string[] = [CONFIG_SOURCE_ANNOTATION, CONFIG_MIRROR_ANNOTATION, CONFIG_SEEN_ANNOTATION];

/** The order the kubelet's incremental mode sends one merge's updates in. */
const OP_ORDER: readonly PodOperation[] = ["REMOVE", "ADD", "UPDATE", "DELETE", "RECONCILE"];

export class PodConfig {
  private readonly clock: Clock;
  private readonly log: Logger;
  /** source → UID → pod, in the order the source listed them: the admitted pods. */
  private readonly bySource = new Map<PodSourceName, Map<string, Pod>>();
  /** source → namespace/name → UID of its admitted pods (the full-name half of conflict()). */
  private readonly namesBySource = new Map<PodSourceName, Map<string, string>>();
  /** Each source's last snapshot as delivered, so a refused pod is admitted when its holder goes. */
  private readonly lastSnapshot = new Map<PodSourceName, SourceReport>();
  /** Sources whose last snapshot had pods refused for a conflict: merged again when a holder lets go. */
  private readonly waiting = new Set<PodSourceName>();
  private readonly errorsBySource = new Map<PodSourceName, ManifestError[]>();
  /** Sources that delivered a complete set at least once (the kubelet's sourcesSeen). */
  private readonly seen = new Set<PodSourceName>();
  private readonly listeners = new Set<PodUpdateListener>();

  constructor(opts: PodConfigOptions) {
    this.clock = opts.clock;
    this.log = opts.log;
  }

  /**
   * Merges a source's full set of pods and returns the operations it implies, REMOVE, ADD, UPDATE,
   * DELETE, RECONCILE in that order, empty ones left out. Listeners get the same updates, in order.
   * The kubelet also sends an empty ADD on a source's first SET to say it is ready; here readiness
   * is asked of `seenAllSources` instead, so no empty update is ever returned.
   */
  apply(snapshot: SourceReport): PodUpdate[] {
    const source = snapshot.source;
    this.lastSnapshot.set(source, snapshot);
    if (snapshot.complete !== false) this.seen.add(source);
    const updates = this.merge(source, snapshot);
    // What this source let go (a pod removed, renamed or edited to a new UID) may be what another
    // source's refused pods wait for. Re-merging only adds pods to those sources, so it frees nothing
    // and one pass in a fixed order (first come, first served) settles it.
    if (updates.some((u) => u.op === "REMOVE")) {
      for (const other of [...this.waiting]) {
        if (other !== source) updates.push(...this.merge(other, this.lastSnapshot.get(other)!));
      }
    }
    for (const u of updates) {
      this.log.debug("config: pod update", { op: u.op, pods: u.pods.map(podKey), source: u.source });
      for (const l of [...this.listeners]) l(u);
    }
    return updates;
  }

  /**
   * The other source that holds the pod's UID or namespace/name, if any: what apply() would refuse the
   * pod for. Synchronous, so that the push API can answer 409 at once instead of accepting a pod
   * that would only be reported as refused.
   */
  conflict(pod: Pod, source: PodSourceName): PodConflict | undefined {
    const uid = pod.metadata?.uid ?? "";
    const name = podKey(pod);
    for (const [holder, pods] of this.bySource) {
      if (holder === source) continue;
      const byUid = pods.get(uid);
      if (byUid) {
        const holderName = podKey(byUid);
        return { field: "metadata.uid", holder, holderUid: uid, holderName, message: `UID ${uid} is held by pod ${holderName} of source ${holder}` };
      }
      const holderUid = this.namesBySource.get(holder)?.get(name);
      if (holderUid !== undefined) {
        return { field: "metadata.name", holder, holderUid, holderName: name, message: `pod ${name} is held by source ${holder} (UID ${holderUid})` };
      }
    }
    return undefined;
  }

  /** One source's set against what it had: the operations, in the kubelet's order. Listeners are not called. */
  private merge(source: PodSourceName, snapshot: SourceReport): PodUpdate[] {
    const old = this.bySource.get(source) ?? new Map<string, Pod>();
    const next = new Map<string, Pod>();
    const ops: Record<PodOperation, Pod[]> = { REMOVE: [], ADD: [], UPDATE: [], DELETE: [], RECONCILE: [] };
    const { pods, duplicates } = dropDuplicateNames(snapshot.pods, source);
    const previous = new Set((this.errorsBySource.get(source) ?? []).map((e) => e.message));
    const refused: ManifestError[] = [];
    let conflicts = 0;
    for (const incoming of pods) {
      const uid = incoming.metadata?.uid ?? "";
      const bad = podUIDProblem(uid);
      if (bad) {
        refused.push(
          sourceError(source, "metadata.uid", `pod ${podKey(incoming)} from source ${source} is refused: metadata.uid ${JSON.stringify(uid)} ${bad}`),
        );
        continue;
      }
      const conflict = this.conflict(incoming, source);
      if (conflict) {
        conflicts++;
        refused.push(
          sourceError(
            source,
            conflict.field,
            `pod ${podKey(incoming)} (UID ${uid}) from source ${source} is refused: ${conflict.message}; it is admitted when that pod goes`,
          ),
        );
        continue;
      }
      // The kubelet marks the source before any comparison, so a source that sets it differently
      // (or not at all) never causes an update.
      // Copied, so the store shares nothing with the source that handed the pod over.
      const ref = withAnnotations(structuredClone(incoming), { [CONFIG_SOURCE_ANNOTATION]: source });
      const existing = old.get(uid) ?? next.get(uid);
      if (!existing) {
        // First sight of this UID: stamp config.seen once; it stays as long as the UID lives.
        const added = withAnnotations(ref, { [CONFIG_SEEN_ANNOTATION]: rfc3339(this.clock.now()) });
        next.set(uid, added);
        ops.ADD.push(added);
        continue;
      }
      if (next.has(uid)) continue; // the same UID twice in one set: the first one stands
      const { pod, op } = mergeExisting(existing, ref);
      next.set(uid, pod);
      if (op) ops[op].push(pod);
    }
    for (const [uid, pod] of old) if (!next.has(uid)) ops.REMOVE.push(pod);

    this.bySource.set(source, next);
    this.namesBySource.set(source, new Map([...next.values()].map((p) => [podKey(p), p.metadata?.uid ?? ""])));
    // Logged when they first appear, not on every merge of an unchanged set.
    for (const e of [...duplicates, ...refused]) if (!previous.has(e.message)) this.log.warn(e.message);
    this.errorsBySource.set(source, [...snapshot.errors, ...duplicates, ...refused]);
    if (conflicts > 0) this.waiting.add(source);
    else this.waiting.delete(source);

    const updates: PodUpdate[] = [];
    for (const op of OP_ORDER) {
      const list = ops[op];
      if (list.length > 0) updates.push({ op, source, pods: list.map((p) => structuredClone(p)) });
    }
    return updates;
  }

  /** True once every expected source delivered a complete set; the kubelet's SeenAllSources. */
  seenAllSources(expected: readonly PodSourceName[]): boolean {
    return expected.every((s) => this.seen.has(s));
  }

  /** The manifest errors every source reports now, plus the duplicates the merge dropped. */
  errors(): ManifestError[] {
    return [...this.errorsBySource.values()].flat();
  }

  /** Every current pod of every source (copies). */
  pods(): Pod[] {
    const out: Pod[] = [];
    for (const m of this.bySource.values()) for (const p of m.values()) out.push(structuredClone(p));
    return out;
  }

  /**
   * Calls cb with every update, synchronously and in order; returns an unsubscribe. A listener that
   * comes after pods were merged first gets them as one ADD per source: like the kubelet's buffered
   * updates channel, nothing merged before the sync loop started listening is lost (a source can
   * have a set the moment it starts, e.g. pushed pods kept across a restart).
   */
  onUpdate(cb: PodUpdateListener): () => void {
    for (const [source, pods] of this.bySource) {
      if (pods.size > 0) cb({ op: "ADD", source, pods: [...pods.values()].map((p) => structuredClone(p)) });
    }
    this.listeners.add(cb);
    return () => void this.listeners.delete(cb);
  }
}

/**
 * Within one source, a second pod with the same namespace/name is dropped and reported, as the
 * kubelet's filterInvalidPods does ("duplicate pod name … ignoring").
 */
function dropDuplicateNames(pods: readonly Pod[], source: PodSourceName): { pods: Pod[]; duplicates: ManifestError[] } {
  const firstByName = new Map<string, Pod>();
  const kept: Pod[] = [];
  const duplicates: ManifestError[] = [];
  for (const pod of pods) {
    const name = podKey(pod);
    const first = firstByName.get(name);
    if (first) {
      duplicates.push(
        sourceError(
          source,
          "metadata.name",
          `duplicate pod name "${name}" from source ${source} (UID ${pod.metadata?.uid ?? "?"}): ignoring it, the pod with UID ${first.metadata?.uid ?? "?"} is kept`,
        ),
      );
      continue;
    }
    firstByName.set(name, pod);
    kept.push(pod);
  }
  return { pods: kept, duplicates };
}

/** An error of the merge itself: it has no file of its own, so it names the source. */
function sourceError(source: PodSourceName, field: string, message: string): ManifestError {
  return { file: source, line: 1, column: 1, field, message };
}

/**
 * Compares a known pod with its new version, as the kubelet's checkAndUpdatePod: a change to the
 * spec, labels, deletion fields or non-local annotations is an UPDATE (a DELETE when a deletion
 * timestamp is set); otherwise a status change alone is a RECONCILE. Local annotations (source,
 * seen, mirror) of the known pod are kept, so config.seen never moves.
 */
function mergeExisting(existing: Pod, ref: Pod): { pod: Pod; op?: PodOperation } {
  const em = existing.metadata ?? {};
  const rm = ref.metadata ?? {};
  const differs =
    !deepEqual(existing.spec, ref.spec) ||
    !deepEqual(em.labels ?? {}, rm.labels ?? {}) ||
    !deepEqual(em.deletionTimestamp, rm.deletionTimestamp) ||
    !deepEqual(em.deletionGracePeriodSeconds, rm.deletionGracePeriodSeconds) ||
    !deepEqual(nonLocal(em.annotations), nonLocal(rm.annotations));
  if (!differs) {
    if (deepEqual(existing.status, ref.status)) return { pod: existing };
    return { pod: { ...existing, status: ref.status }, op: "RECONCILE" };
  }
  const annotations: Record<string, string> = { ...(rm.annotations ?? {}) };
  for (const k of LOCAL_ANNOTATIONS) {
    const v = em.annotations?.[k];
    if (v !== undefined) annotations[k] = v;
  }
  const pod: Pod = {
    ...existing,
    metadata: {
      ...em,
      labels: rm.labels,
      annotations,
      deletionTimestamp: rm.deletionTimestamp,
      deletionGracePeriodSeconds: rm.deletionGracePeriodSeconds,
      // As the 1.36 kubelet's checkAndUpdatePod: a resize's new generation is what its conditions observe.
      ...(rm.generation !== undefined ? { generation: rm.generation } : {}),
    },
    spec: ref.spec,
    status: ref.status,
  };
  return { pod, op: rm.deletionTimestamp ? "DELETE" : "UPDATE" };
}

function nonLocal(annotations: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations ?? {})) if (!LOCAL_ANNOTATIONS.includes(k)) out[k] = v;
  return out;
}

function withAnnotations(pod: Pod, extra: Record<string, string>): Pod {
  const metadata = pod.metadata ?? {};
  return { ...pod, metadata: { ...metadata, annotations: { ...(metadata.annotations ?? {}), ...extra } } };
}

/** RFC 3339 in UTC, as the kubelet's config.seen (it uses RFC3339Nano; milliseconds are what we have). */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/** Structural equality of JSON-like values; a field set to undefined counts as absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && deepEqual(ra[k], rb[k]));
}
