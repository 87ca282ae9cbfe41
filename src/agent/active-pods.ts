// The pods the node runs now and how it stops one on its own: the admission chain over the active pods
// (the kubelet's canAdmitPod), the eviction manager's candidates (GetActivePods), eviction and a node
// shutdown's termination through the pod workers, and whether a pod's resources are reclaimed.
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { admitPod, type PodAdmitHandler, type PodAdmitResult } from "../admission";
import { isTerminalPhase, podKey, podRef } from "../api";
import { type EventRecorder, podReference } from "../events";
import type { EvictionStatus } from "../eviction";
import type { EvictedPods } from "./evicted-pods";
import type { PodWorkers, PodWorkerView } from "./pod-workers";

export interface ActivePodsOptions {
  workers: PodWorkers;
  /** The status last reported for a worker (ApiStatuses): a pod whose phase is terminal is not active. */
  lastStatus(s: PodWorkerView): ApiPodStatus | undefined;
  admitHandlers: PodAdmitHandler[];
  events: EventRecorder;
  /** The record of evicted pods, kept across restarts. */
  evicted: EvictedPods;
}

export class ActivePods {
  /** Who waits for a pod's termination (terminate), by UID: told by terminated(). */
  private readonly terminationWaiters = new Map<string, (() => void)[]>();

  constructor(private readonly o: ActivePodsOptions) {}

  /**
   * The admission chain over the pods the node runs now (the kubelet's canAdmitPod over its active
   * pods). dryRun: only the answer (the push source's check), no preemption.
   */
  canAdmitPod(pod: Pod, o: { dryRun?: boolean } = {}): PodAdmitResult {
    const uid = podRef(pod).uid;
    const name = podKey(pod);
    // Active pods: what the sources still have and has not finished. A pod being replaced under the
    // same name (an edited static pod, a re-pushed pod) does not count against its replacement.
    const otherPods = this.o.workers
      .states()
      .filter((s) => s.uid !== uid && s.fullName !== name && !s.removed && s.phase !== "terminated" && !isTerminalPhase(this.o.lastStatus(s)?.phase))
      .map((s) => s.pod);
    return admitPod(this.o.admitHandlers, { pod, otherPods, dryRun: o.dryRun });
  }

  /**
   * The pods the node runs now, as the kubelet's GetActivePods sees them: the eviction manager's
   * candidates. Not a pod being deleted or terminating, not one that has finished (a restartPolicy
   * Never pod whose containers have all exited), not one waiting for its previous instance to end.
   */
  activePods(): Pod[] {
    return this.o.workers
      .states()
      .filter(
        (s) =>
          s.phase === "syncing" && !s.removed && !s.restartRequested && !s.pod.metadata?.deletionTimestamp && !isTerminalPhase(this.o.lastStatus(s)?.phase),
      )
      .map((s) => s.pod);
  }

  /**
   * How the node stops a pod on its own (the eviction manager, critical-pod preemption at admission):
   * through the pod workers, remembered across restarts.
   */
  evictPod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): boolean {
    const uid = podRef(pod).uid;
    if (!this.o.workers.evictPod(uid, { status, gracePeriodSeconds })) return false;
    // The evictor's Warning event on the pod: Evicted (the eviction manager) or Preempting (critical
    // pod admission), with the status message.
    this.o.events.event(podReference(pod), "Warning", status.reason, status.message);
    this.o.evicted.add(uid, status);
    return true;
  }

  /**
   * How a node shutdown stops a pod (src/nodeshutdown; the kubelet's killPodFunc, waited for): through
   * the pod workers' evictPod, so the status sticks (phase Failed, the reason and message), resolving
   * once the pod has terminated; false at once when it is not running. Unlike an eviction it is not
   * remembered across restarts: when the node is back, its static pods start again, as the kubelet's
   * do after a reboot (an API pod stays Failed: the API server has its status).
   */
  terminatePod(pod: Pod, status: EvictionStatus, gracePeriodSeconds: number): Promise<boolean> {
    const uid = podRef(pod).uid;
    return new Promise((resolve) => {
      const waiters = this.terminationWaiters.get(uid) ?? [];
      waiters.push(() => resolve(true));
      this.terminationWaiters.set(uid, waiters);
      if (!this.o.workers.evictPod(uid, { status, gracePeriodSeconds })) {
        waiters.pop();
        if (waiters.length === 0) this.terminationWaiters.delete(uid);
        resolve(false);
      }
    });
  }

  /** The pod has terminated: whoever waits for it (terminatePod) is told. */
  terminated(uid: string): void {
    for (const done of this.terminationWaiters.get(uid) ?? []) done();
    this.terminationWaiters.delete(uid);
  }

  /**
   * The kubelet's podResourcesAreReclaimed, as far as the pod workers track it: the pod has finished
   * terminating (its containers stopped) or is gone altogether.
   */
  podCleanedUp(pod: Pod): boolean {
    return !this.o.workers.couldHaveRunningContainers(podRef(pod).uid);
  }
}
