// CriticalPodAdmissionHandler: what the kubelet does when a critical pod does not fit (k/k@1.24.1
// pkg/kubelet/preemption/preemption.go). A critical pod is never refused for resources: when the only
// failures are resources (OutOfcpu, OutOfmemory, OutOfpods, …), the node preempts lower-priority pods
// until what is missing is freed, and the critical pod is admitted. Any other failure (affinity, ports,
// taints) stands, and only those are reported.
//
// Which pods go (getPodsToPreempt): the candidates are the active pods the critical pod may preempt
// (kubetypes.Preemptable: any non-critical pod, or a pod of lower priority), grouped by QoS class. If
// all of them together cannot cover what is missing, nothing is preempted and the pod is refused, as
// the kubelet refuses it then: UnexpectedAdmissionError, "Unexpected error while attempting to recover
// from admission failure: preemption: error finding a set of pods to preempt: no set of running pods
// found to reclaim resources: [(res: cpu, q: 500), ]". Otherwise Guaranteed pods are taken only
// for what all Burstable and BestEffort pods could not cover, then Burstable pods for what BestEffort
// pods and those Guaranteed ones could not, then BestEffort pods for the rest. Within a class, pods are
// taken one at a time, each time the one closest to what is still missing (the sum over the missing
// resources of the squared fraction it leaves uncovered), the smaller (memory, then cpu) on a tie: the
// fewest pods, lowest classes first.
//
// A preempted pod is stopped through the EvictionTarget-shaped seam (the agent's pod workers' evictPod),
// with its own grace period (killPodNow with no override), and ends phase Failed, reason `Preempting`,
// message `Preempted in order to admit critical pod`. Unlike the kubelet's killPodNow the stop does not
// block admission: the critical pod starts while the preempted ones terminate.
//
// Critical is src/api isCriticalPod, the kubelet's IsCriticalPod: a priority of at least
// system-cluster-critical's (2×10⁹; a built-in class named without a priority counts), and in a
// cluster every static and mirror pod. Standalone, every pod the agent runs is "static" by the
// kubelet's rule (file, URL, pushed), which would let any pod preempt any other and never be refused
// for resources: there, as for eviction, file, URL and pushed pods are critical only by priority.
import type { QOSClass } from "../cm";
import type { Pod } from "kubernetes-types/core/v1";
import { type CriticalPodOptions, isCriticalPod, isPreemptable, podKey } from "../api";
import { podRequests } from "../scheduler";
import type { Logger } from "../util";
import type { AdmissionFailureHandler, PredicateFailure } from "./predicate-admit-handler";

/** The status reason of a preempted pod (events.PreemptContainer). */
export const PREEMPTING_REASON = "Preempting";
/** Its message (preemption.go's message). */
export const PREEMPTED_MESSAGE = "Preempted in order to admit critical pod";
/** The kubelet's default terminationGracePeriodSeconds, for a pod that says none. */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/** The QoS class (src/cm/qos.ts), by which victims are chosen. */
export type { QOSClass };

/** How a preempted pod is stopped: the agent's pod workers (evictPod), a fake in tests. */
export interface PreemptionTarget {
  /** Stops the pod within the grace period, its status Failed with this reason and message; false when it is not running. */
  evictPod(pod: Pod, status: { reason: string; message: string }, gracePeriodSeconds: number): boolean;
}

export interface CriticalPodAdmissionOptions {
  target: PreemptionTarget;
  /** The pod's QoS class (v1qos.GetPodQOS), from the agent's status code. */
  qosClass: (pod: Pod) => QOSClass;
  log?: Logger;
  /** The node belongs to a cluster (--kubeconfig): its static and mirror pods are critical. */
  cluster?: boolean;
}

/** resource.GetResourceRequest: a pod takes one pod slot; cpu in millicores. */
function request(pod: Pod, resource: string): number {
  if (resource === "pods") return 1;
  return podRequests(pod).get(resource) ?? 0;
}

/** What is still missing: resource name → amount (admissionRequirementList). */
type Requirements = ReadonlyArray<{ resource: string; quantity: number }>;

function subtract(reqs: Requirements, pods: readonly Pod[]): Requirements {
  const out: Array<{ resource: string; quantity: number }> = [];
  for (const r of reqs) {
    let q = r.quantity;
    for (const p of pods) {
      q -= request(p, r.resource);
      if (q <= 0) break;
    }
    if (q > 0) out.push({ resource: r.resource, quantity: q });
  }
  return out;
}

function distance(reqs: Requirements, pod: Pod): number {
  let d = 0;
  for (const r of reqs) {
    const remaining = r.quantity - request(pod, r.resource);
    if (remaining > 0) d += (remaining / r.quantity) ** 2;
  }
  return d;
}

function smallerRequest(a: Pod, b: Pod): boolean {
  for (const res of ["memory", "cpu"]) {
    const x = request(a, res);
    const y = request(b, res);
    if (x !== y) return x < y;
  }
  return true;
}

function describe(reqs: Requirements): string {
  return `[${reqs.map((r) => `(res: ${r.resource}, q: ${r.quantity}), `).join("")}]`;
}

/** getPodsToPreemptByDistance: the pods of one class that cover reqs, fewest first; undefined when they cannot. */
function byDistance(candidates: readonly Pod[], reqs: Requirements): Pod[] | string {
  const pods = [...candidates];
  const chosen: Pod[] = [];
  let left = reqs;
  while (left.length > 0) {
    if (pods.length === 0) return `no set of running pods found to reclaim resources: ${describe(left)}`;
    let best = 0;
    let bestDistance = left.length + 1;
    pods.forEach((p, i) => {
      const d = distance(left, p);
      if (d < bestDistance || (d === bestDistance && smallerRequest(p, pods[best]!))) {
        bestDistance = d;
        best = i;
      }
    });
    const pod = pods[best]!;
    left = subtract(left, [pod]);
    chosen.push(pod);
    pods[best] = pods[pods.length - 1]!;
    pods.pop();
  }
  return chosen;
}

/** getPodsToPreempt: the pods to stop so that reqs are freed, or why there are none. */
export function podsToPreempt(
  preemptor: Pod,
  active: readonly Pod[],
  reqs: Requirements,
  qosClass: (pod: Pod) => QOSClass,
  critical: CriticalPodOptions = { cluster: false },
): Pod[] | string {
  const byClass: Record<QOSClass, Pod[]> = { BestEffort: [], Burstable: [], Guaranteed: [] };
  for (const p of active) if (isPreemptable(preemptor, p, critical)) byClass[qosClass(p)].push(p);
  const { BestEffort: bestEffort, Burstable: burstable, Guaranteed: guaranteed } = byClass;
  const unmet = subtract(reqs, [...bestEffort, ...burstable, ...guaranteed]);
  if (unmet.length > 0) return `no set of running pods found to reclaim resources: ${describe(unmet)}`;
  const g = byDistance(guaranteed, subtract(reqs, [...bestEffort, ...burstable]));
  if (typeof g === "string") return g;
  const bu = byDistance(burstable, subtract(reqs, [...bestEffort, ...g]));
  if (typeof bu === "string") return bu;
  const be = byDistance(bestEffort, subtract(reqs, [...bu, ...g]));
  if (typeof be === "string") return be;
  return [...be, ...bu, ...g];
}

export class CriticalPodAdmissionHandler implements AdmissionFailureHandler {
  constructor(private readonly o: CriticalPodAdmissionOptions) {}

  handleAdmissionFailure(
    pod: Pod,
    failures: readonly PredicateFailure[],
    otherPods: readonly Pod[],
    dryRun: boolean,
  ): { failures: readonly PredicateFailure[] } | { error: string } {
    const critical = { cluster: this.o.cluster ?? false };
    if (!isCriticalPod(pod, critical)) return { failures };
    const others = failures.filter((f) => f.kind !== "resource");
    // Only the failures that are not about resources count against a critical pod.
    if (others.length > 0) return { failures: others };
    const reqs: Requirements = failures.flatMap((f) =>
      f.kind === "resource" ? [{ resource: f.resource.resourceName, quantity: f.resource.requested - (f.resource.capacity - f.resource.used) }] : [],
    );
    const victims = podsToPreempt(pod, otherPods, reqs, this.o.qosClass, critical);
    if (typeof victims === "string") return { error: `preemption: error finding a set of pods to preempt: ${victims}` };
    // Asked only (a push being checked): the pod would be admitted; the preemption happens when it is.
    if (dryRun) return { failures: [] };
    for (const v of victims) {
      this.o.log?.warn("admission: preempting a pod to admit a critical pod", { pod: podKey(v), critical: podKey(pod), missing: describe(reqs) });
      // A pod already on its way out cannot be stopped again; the kubelet logs and goes on too.
      if (
        !this.o.target.evictPod(
          v,
          { reason: PREEMPTING_REASON, message: PREEMPTED_MESSAGE },
          v.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS,
        )
      ) {
        this.o.log?.warn("admission: pod could not be preempted (not running any more)", { pod: podKey(v) });
      }
    }
    return { failures: [] };
  }
}
