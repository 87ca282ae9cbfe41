// Relister: the one writer of the pod status cache. A full relist lists every sandbox and container;
// relistPod re-reads the sandboxes of one pod (the hint a runtime event or the agent's own action
// gives). Both diff against the last recorded state, refresh the cache for pods that changed, and
// emit lifecycle events. They run one at a time, so the records and the cache never see two writers.
import { type ContainerStatus, type CriClient, NotFoundError, POD_UID, type PodSandboxStatus } from "../cri";
import { type Clock, Limiter, Mutex } from "../util";
import type { PodStatusCache } from "./cache";
import { computePodEvents, groupPods, hasHiddenChange, type ContainerTransition } from "./diff";
import type { PlegMode, PodLifecycleEvent, PodStatus, RelistStats, RuntimePod } from "./types";

/** The runtime calls the relist needs; CriClient provides them, tests provide a fake. */
export type RelistRuntime = Pick<CriClient, "listPodSandbox" | "listContainers" | "podSandboxStatus" | "containerStatus">;

interface PodRecord {
  old: RuntimePod | undefined;
  current: RuntimePod | undefined;
}

/** What changed in a pod's record since it was last recorded. */
interface RecordChange {
  record: PodRecord;
  transitions: ContainerTransition[];
}

/** A pod status read, settled: awaited later, it must not count as an unhandled rejection meanwhile. */
type StatusRead = { status: PodStatus; error?: undefined } | { status?: undefined; error: unknown };

/**
 * How many pods a full relist reads at once. The kubelet reads them one after another (generic.go
 * relist, "we should parallelize if needed"); after a restart every pod is new to the relist, and
 * 100 pods read in turn held the first relist, and with it the PLEG health check, for ~0.8 s.
 */
export const STATUS_READS_AT_ONCE = 10;

export class Relister {
  private records = new Map<string, PodRecord>();
  private podsToReinspect = new Set<string>();
  private readonly lock = new Mutex();
  readonly stats: RelistStats = { lastRelistTime: 0, lastRelistDurationMs: 0, relists: 0, podRelists: 0, relistErrors: 0 };

  constructor(
    private readonly runtime: RelistRuntime,
    private readonly cache: PodStatusCache,
    private readonly clock: Clock,
    private readonly emit: (e: PodLifecycleEvent) => void,
    private readonly onError: (what: string, err: unknown) => void = () => {},
  ) {}

  /** The pod a sandbox or container id belongs to, from the last records. */
  podOfContainer(id: string): string | undefined {
    for (const [uid, r] of this.records) {
      if (r.current?.containers.has(id) || r.old?.containers.has(id)) return uid;
    }
    return undefined;
  }

  /** A full relist. Returns false when the runtime could not be listed (relist time not advanced). */
  relist(): Promise<boolean> {
    return this.lock.run(async () => {
      const start = this.clock.now();
      const t0 = performance.now();
      let pods: Map<string, RuntimePod>;
      try {
        const [sandboxes, containers] = await Promise.all([this.runtime.listPodSandbox(), this.runtime.listContainers()]);
        pods = groupPods(sandboxes, containers);
      } catch (err) {
        // As the kubelet since PR #45496: a failed relist leaves the relist time alone, so health
        // reflects how long the runtime has been unlistable.
        this.stats.relistErrors++;
        this.onError("relist", err);
        return false;
      }
      for (const [uid, r] of this.records) r.current = pods.get(uid);
      for (const [uid, pod] of pods) {
        const r = this.records.get(uid);
        if (r) r.current = pod;
        else this.records.set(uid, { old: undefined, current: pod });
      }
      // The pods that changed are read together (STATUS_READS_AT_ONCE at a time), each after the
      // list as before; the cache and the events are then written pod by pod, in order.
      const changes = [...this.records.keys()].map((uid) => [uid, this.changeOf(uid)] as const);
      const limiter = new Limiter(STATUS_READS_AT_ONCE);
      const reads = new Map<string, Promise<StatusRead>>();
      for (const [uid, change] of changes) {
        const current = change?.record.current;
        if (current) reads.set(uid, settle(limiter.run(() => this.podStatus(current, this.cache.get(uid)?.status))));
      }
      for (const [uid, change] of changes) await this.syncRecord(uid, start, "generic", change, reads.get(uid));
      this.cache.updateTime(start);
      this.stats.lastRelistTime = start;
      this.stats.lastRelistDurationMs = performance.now() - t0;
      this.stats.relists++;
      return true;
    });
  }

  /**
   * Re-reads one pod: its known sandboxes plus `sandboxIds` (a new sandbox an event named). Skipped
   * when a full relist started after `requestedAt` has already covered it.
   */
  relistPod(uid: string, sandboxIds: Iterable<string> = [], requestedAt = this.clock.now(), mode: PlegMode = "evented", onStart?: () => void): Promise<void> {
    return this.lock.run(async () => {
      onStart?.();
      if (this.stats.lastRelistTime > requestedAt) return;
      const start = this.clock.now();
      let sandboxIdsSeen = new Set<string>();
      const record = this.records.get(uid) ?? { old: undefined, current: undefined };
      let pod: RuntimePod | undefined;
      try {
        // By the kubelet's pod-uid label first: it finds sandboxes and containers made since the last
        // relist (the agent's own new sandbox). Sandboxes known or hinted but not labelled (made by
        // another CRI client) are read by id.
        const selector = { labelSelector: { [POD_UID]: uid } };
        const [sandboxes, containers] = await Promise.all([this.runtime.listPodSandbox(selector), this.runtime.listContainers(selector)]);
        const ids = new Set(sandboxIds);
        for (const c of record.current?.containers.values() ?? []) if (c.sandbox) ids.add(c.id);
        for (const s of sandboxes) ids.delete(s.id);
        const extra = await Promise.all(
          [...ids].map(async (id) => [await this.runtime.listPodSandbox({ id }), await this.runtime.listContainers({ podSandboxId: id })] as const),
        );
        const allContainers = new Map([...containers, ...extra.flatMap((l) => l[1])].map((c) => [c.id, c]));
        pod = groupPods([...sandboxes, ...extra.flatMap((l) => l[0])], [...allContainers.values()]).get(uid);
        for (const s of sandboxes) ids.add(s.id);
        for (const s of extra.flatMap((l) => l[0])) ids.add(s.id);
        sandboxIdsSeen = ids;
      } catch (err) {
        this.onError(`relist of pod ${uid}`, err);
        return;
      }
      // A container whose sandbox was already gone is found only by listing everything: keep it as
      // recorded, so the next full relist, not this partial view, decides that it was removed.
      for (const c of record.current?.containers.values() ?? []) {
        if (c.sandbox || sandboxIdsSeen.has(c.podSandboxId) || pod?.containers.has(c.id)) continue;
        pod ??= { uid, name: record.current!.name, namespace: record.current!.namespace, containers: new Map() };
        pod.containers.set(c.id, c);
      }
      record.current = pod;
      if (pod || record.old) this.records.set(uid, record);
      this.stats.podRelists++;
      const changed = await this.syncRecord(uid, start, mode);
      // Nothing changed: what the cache holds is current as of this relist.
      if (!changed && !this.podsToReinspect.has(uid)) this.cache.touch(uid, start);
    });
  }

  /** The pod's statuses are read again at its next relist, changed or not. */
  reinspect(uid: string): void {
    this.podsToReinspect.add(uid);
  }

  /** The pod's record diffed: undefined when nothing changed and it need not be read again. */
  private changeOf(uid: string): RecordChange | undefined {
    const record = this.records.get(uid);
    if (!record) return undefined;
    const transitions = computePodEvents(record.old, record.current);
    if (transitions.length === 0 && !this.podsToReinspect.has(uid) && !hasHiddenChange(record.old, record.current)) return undefined;
    return { record, transitions };
  }

  /**
   * Refreshes the cache entry of a pod whose record changed (`change`, the record diffed; `read`, its
   * status when already being read), and emits its events. Returns whether the pod changed (or had
   * to be read again).
   */
  private async syncRecord(uid: string, start: number, mode: PlegMode, change = this.changeOf(uid), read?: Promise<StatusRead>): Promise<boolean> {
    if (!change) return false;
    const { record: r, transitions } = change;
    let status: PodStatus | undefined;
    if (r.current) {
      const got = await (read ?? settle(this.podStatus(r.current, this.cache.get(uid)?.status)));
      if (got.status === undefined) {
        // As the kubelet: the record is not advanced and the pod is read again on the next relist.
        const err = got.error;
        this.podsToReinspect.add(uid);
        this.onError(`status of pod ${uid}`, err);
        this.cache.set(uid, this.cache.get(uid)?.status, err instanceof Error ? err : new Error(String(err)), start);
        return true;
      }
      status = got.status;
      this.cache.set(uid, status, undefined, start);
    } else {
      this.cache.remove(uid, start);
    }
    this.podsToReinspect.delete(uid);
    const seen = (r.current ?? r.old)!;
    const ref = { uid, name: seen.name, namespace: seen.namespace };
    r.old = r.current;
    if (!r.current) this.records.delete(uid);

    if (transitions.length === 0) {
      this.emit({ type: "PodSync", pod: ref, mode, time: start });
      return true;
    }
    for (const t of transitions) {
      const e: PodLifecycleEvent = { type: t.type, pod: ref, containerId: t.container.id, containerName: t.container.name, mode, time: start };
      if (t.container.sandbox) e.sandbox = true;
      if (t.type === "ContainerDied" && !t.container.sandbox) {
        const cs = status?.containerStatuses.find((s) => s.id === t.container.id);
        if (cs && cs.finishedAt) {
          e.exitCode = cs.exitCode;
          if (cs.reason) e.reason = cs.reason;
        }
      }
      this.emit(e);
    }
    return true;
  }

  /** The kubelet's GetPodStatus: every sandbox's and container's status, newest first. */
  private async podStatus(pod: RuntimePod, previous: PodStatus | undefined): Promise<PodStatus> {
    const sandboxes = [...pod.containers.values()].filter((c) => c.sandbox).sort((a, b) => b.createdAt - a.createdAt);
    const containers = [...pod.containers.values()].filter((c) => !c.sandbox).sort((a, b) => b.createdAt - a.createdAt);
    const [sandboxStatuses, containerStatuses] = await Promise.all([
      Promise.all(sandboxes.map((s) => ignoreNotFound(this.runtime.podSandboxStatus(s.id).then((r) => r.status)))),
      Promise.all(containers.map((c) => ignoreNotFound(this.runtime.containerStatus(c.id)))),
    ]);
    const sbs = sandboxStatuses.filter((s): s is PodSandboxStatus => s !== undefined);
    const ips = podIPs(sbs[0]);
    return {
      uid: pod.uid,
      name: pod.name,
      namespace: pod.namespace,
      // As the kubelet: keep the IPs of a sandbox that is no longer ready, the pod still "has" them
      // until a new sandbox replaces it.
      ips: ips.length > 0 ? ips : (previous?.ips ?? []),
      sandboxStatuses: sbs,
      containerStatuses: containerStatuses.filter((s): s is ContainerStatus => s !== undefined),
    };
  }
}

function settle(p: Promise<PodStatus>): Promise<StatusRead> {
  return p.then(
    (status) => ({ status }),
    (error: unknown) => ({ error }),
  );
}

function podIPs(s: PodSandboxStatus | undefined): string[] {
  if (!s || s.state !== "SANDBOX_READY" || !s.network) return [];
  return [s.network.ip, ...s.network.additionalIps.map((a) => a.ip)].filter((ip) => ip !== "");
}

async function ignoreNotFound<T>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (err) {
    // Removed between the list and the status call: the next relist records it as gone.
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
