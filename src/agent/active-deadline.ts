// ActiveDeadline: spec.activeDeadlineSeconds, the kubelet's pkg/kubelet/active_deadline.go
// (k/k@1.24.1). A pod that has been active on the node for at least that long since its status's
// startTime is stopped by the node: phase Failed, reason DeadlineExceeded, the kubelet's message. The
// kubelet checks it as a PodSyncHandler on every sync and as a PodSyncLoopHandler on its 1 s sync
// tick; here the agent asks shouldEvict before each sync, evicts the pod through the pod workers
// (so the Failed status sticks, across restarts too, as an eviction does), and asks deadline() after
// each sync so that the pod's worker is due again at the deadline itself rather than at its next resync.
import type { Pod } from "kubernetes-types/core/v1";
import type { Clock } from "../util";
import type { PodFailure } from "../status";

export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE = "Pod was active on the node longer than the specified deadline";

export class ActiveDeadline {
  constructor(private readonly clock: Clock) {}

  /**
   * When the pod's deadline passes (ms since the epoch), or undefined without one. The start is the
   * API's status.startTime when the pod has one (a cluster pod keeps it across agent restarts), else
   * when the agent first saw the pod (the startTime it reports).
   */
  deadline(pod: Pod, startTime: string | undefined): number | undefined {
    const seconds = pod.spec?.activeDeadlineSeconds;
    if (seconds === undefined || seconds === null) return undefined;
    const apiStart = pod.status?.startTime ? Date.parse(pod.status.startTime) : NaN;
    const seen = startTime ? Date.parse(startTime) : NaN;
    const start = Number.isNaN(apiStart) ? seen : Number.isNaN(seen) ? apiStart : Math.min(apiStart, seen);
    if (Number.isNaN(start)) return undefined; // no start time yet: not past any deadline (pastActiveDeadline)
    return start + seconds * 1000;
  }

  /** pastActiveDeadline → the status the pod is stopped with, or undefined while it may run. */
  shouldEvict(pod: Pod, startTime: string | undefined): PodFailure | undefined {
    const at = this.deadline(pod, startTime);
    if (at === undefined || this.clock.now() < at) return undefined;
    return { reason: DEADLINE_EXCEEDED_REASON, message: DEADLINE_EXCEEDED_MESSAGE };
  }
}
