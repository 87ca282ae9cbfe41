// LocalStorageEviction: the part of the kubelet's eviction manager that enforces a disk emptyDir's
// sizeLimit (k/k@1.24.1 pkg/kubelet/eviction/eviction_manager.go synchronize → localStorageEviction →
// emptyDirLimitEviction; LocalStorageCapacityIsolation, beta and on in 1.24). It is a loop of its own,
// as the kubelet's evictionManager.Start is, not a step of the sync loop: measuring a volume walks a
// folder, which must never hold up pod syncs.
//
// Every monitoring period (the kubelet's evictionMonitoringPeriod, 10 s) it takes the active pods (the
// kubelet's GetActivePods: running, not being deleted, not finished), and for each of their emptyDir
// volumes on disk with a positive sizeLimit measures the volume folder (DiskUsage, as MetricsDu does).
// A pod with a volume over its limit is evicted at once, regardless of node pressure: grace period 0
// (immediateEvictionGracePeriodSeconds; the runtime still gets the 2 s minimum), phase Failed, reason
// "Evicted", message `Usage of EmptyDir volume "<name>" exceeds the limit "<sizeLimit>". ` (helpers.go
// emptyDirMessageFmt). Every offending pod is evicted in the same cycle (localStorageEviction does not
// stop at one pod, unlike pressure eviction), the first offending volume in spec order naming it.
//
// Memory-backed emptyDirs (medium: Memory) are never measured here. The kubelet's check itself does not
// look at the medium (MetricsDu runs on the tmpfs too), but its tmpfs is mounted with size = the
// smallest of node allocatable, the pod's memory limit and sizeLimit (SizeMemoryBackedVolumes, on in
// 1.24), as ours is (src/volume/empty-dir.ts): a write past the limit fails with ENOSPC, and what is
// written is charged to the pod's memory cgroup, so the usage the kubelet could see over the limit is at
// most the kernel's rounding of the size up to a page. Walking a tmpfs every 10 s for that is not worth it.
//
// Critical pods are not evicted (kubelet evictPod: "cannot evict a critical pod"): src/api
// isCriticalPod, the kubelet's IsCriticalPod — in a cluster static and mirror pods, and anywhere a pod
// of a critical priority (spec.priority, or a built-in class named without one). Standalone, file, URL
// and pushed pods are evicted like API pods unless their priority is critical (see src/api/pod-priority.ts).
// An evicted pod stays listed, Failed, until its source deletes it.
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { isCriticalPod, podKey, podRef, type Quantity, QuantityError, tryParseQuantity, volumeDir } from "../api";
import { type Clock, type Logger, runUntil } from "../util";
import type { DiskUsage } from "../stats";
import type { PressureCondition } from "./signals";

/** The kubelet's evictionMonitoringPeriod (pkg/kubelet/kubelet.go): how often usage is measured. */
export const EVICTION_MONITORING_PERIOD_MS = 10_000;
/** The kubelet's immediateEvictionGracePeriodSeconds: a local-storage limit eviction kills at once. */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 0;
/** The status reason of an evicted pod (eviction.Reason). */
export const EVICTED_REASON = "Evicted";

/** The status an evicted pod keeps (the eviction manager's podStatusFunc): phase Failed with these. */
export interface EvictionStatus {
  reason: string;
  message: string;
  /**
   * The node condition whose pressure the eviction relieved (the eviction manager's; none for a
   * sizeLimit, a preemption or a deadline). A file, URL or pushed pod evicted for it starts again once
   * the condition is gone (the agent's departure from the kubelet; see src/agent/evicted-pods.ts).
   */
  condition?: PressureCondition;
}

/** What the eviction manager sees of the node and how it acts on it: the agent, a fake in tests. */
export interface EvictionTarget {
  /** The pods the node runs now (the kubelet's GetActivePods): not being deleted, not finished. */
  activePods(): Pod[];
  /**
   * Stops the pod within the grace period and makes its status phase Failed with this reason and
   * message (the kubelet's killPodNow); false when it is not running any more.
   */
  evictPod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): boolean;
  /**
   * Whether an evicted pod's resources are reclaimed (the kubelet's podResourcesAreReclaimed: its
   * containers stopped, its volumes cleaned up): the eviction manager waits for it before its next
   * cycle. Without it, a pod counts as cleaned up at once.
   */
  podCleanedUp?(pod: Pod): boolean;
}

export interface LocalStorageEvictionOptions {
  /** Where the pods' folders are: <podsDir>/<uid>/volumes/kubernetes.io~empty-dir/<name>. */
  podsDir: string;
  usage: DiskUsage;
  target: EvictionTarget;
  clock: Clock;
  log: Logger;
  /** EVICTION_MONITORING_PERIOD_MS by default; short in e2e tests (--eviction-monitoring-period). */
  monitoringPeriodMs?: number;
  /** The node belongs to a cluster (--kubeconfig): its static and mirror pods are critical (src/api isCriticalPod). */
  cluster?: boolean;
}

/** The message of an emptyDir over its sizeLimit (emptyDirMessageFmt, with Go's %q and Quantity.String()). */
export function emptyDirLimitMessage(volumeName: string, sizeLimit: Quantity): string {
  return `Usage of EmptyDir volume ${JSON.stringify(volumeName)} exceeds the limit ${JSON.stringify(sizeLimit.toString())}. `;
}

/** A disk emptyDir's positive sizeLimit, if it has one (an unparsable one was refused at admission). */
function diskSizeLimit(v: Volume): Quantity | undefined {
  const ed = v.emptyDir;
  if (!ed || ed.medium === "Memory" || ed.sizeLimit === undefined) return undefined;
  const q = tryParseQuantity(ed.sizeLimit);
  return q instanceof QuantityError || q.sign() !== 1 ? undefined : q;
}

export class LocalStorageEviction {
  readonly monitoringPeriodMs: number;

  constructor(private readonly o: LocalStorageEvictionOptions) {
    this.monitoringPeriodMs = o.monitoringPeriodMs ?? EVICTION_MONITORING_PERIOD_MS;
  }

  /** Checks every monitoring period, the first time at once, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await runUntil(this.o.clock, this.monitoringPeriodMs, signal, () =>
      this.synchronize().then(
        () => {},
        (err) => this.o.log.error("eviction manager: synchronize failed", { err }),
      ),
    );
  }

  /** One check of every active pod's disk emptyDirs; the pods it evicted. */
  async synchronize(): Promise<Pod[]> {
    const evicted: Pod[] = [];
    for (const pod of this.o.target.activePods()) {
      const over = await this.volumeOverLimit(pod);
      if (!over) continue;
      if (isCriticalPod(pod, { cluster: this.o.cluster ?? false })) {
        this.o.log.error("eviction manager: cannot evict a critical pod", { pod: podKey(pod), reason: over.message });
        continue;
      }
      if (this.o.target.evictPod(pod, { reason: EVICTED_REASON, message: over.message }, IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS)) evicted.push(pod);
    }
    return evicted;
  }

  /** The first disk emptyDir of the pod (in spec order) whose usage exceeds its sizeLimit. */
  private async volumeOverLimit(pod: Pod): Promise<{ message: string } | undefined> {
    const uid = podRef(pod).uid;
    for (const v of pod.spec?.volumes ?? []) {
      const limit = diskSizeLimit(v);
      if (!limit) continue;
      const limitBytes = limit.value();
      let used: number | undefined;
      try {
        used = (await this.o.usage.usage(volumeDir(this.o.podsDir, uid, "emptyDir", v.name), { stopAbove: limitBytes }))?.bytes;
      } catch (err) {
        // As the kubelet without a pod's stats: this pod is not judged this time; the others are.
        this.o.log.warn("eviction manager: cannot measure the usage of an emptyDir", { pod: podKey(pod), volume: v.name, err });
        continue;
      }
      if (used !== undefined && used > limitBytes) return { message: emptyDirLimitMessage(v.name, limit) };
    }
    return undefined;
  }
}
