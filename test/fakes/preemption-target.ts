// A PreemptionTarget that records what admission preempted, and refuses pods the test says have
// already stopped (as the pod workers' evictPod refuses a pod that is terminating).
import type { Pod } from "kubernetes-types/core/v1";
import type { PreemptionTarget } from "../../src/admission";

export class FakePreemptionTarget implements PreemptionTarget {
  readonly evicted: Array<{ name: string; reason: string; message: string; gracePeriodSeconds: number }> = [];
  /** Names of pods evictPod answers false for. */
  readonly gone = new Set<string>();

  evictPod(pod: Pod, status: { reason: string; message: string }, gracePeriodSeconds: number): boolean {
    const name = pod.metadata?.name ?? "";
    if (this.gone.has(name)) return false;
    this.evicted.push({ name, ...status, gracePeriodSeconds });
    return true;
  }
}
