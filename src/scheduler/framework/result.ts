// What one scheduling attempt of a pod came to: the pod was bound to a node, did not fit (with the
// FailedScheduling message), hit an error, or is still gated — and, with --explain, why.
import type { AttemptExplanation } from "./explain";

export type AttemptOutcome = "Scheduled" | "Unschedulable" | "SchedulerError";

export interface AttemptResult {
  namespace: string;
  name: string;
  uid: string;
  /** The queue's attempt number (1 for the first). */
  attempt: number;
  outcome: AttemptOutcome;
  node?: string;
  /** The FailedScheduling message (untruncated); for Scheduled, "Successfully assigned ns/name to node". */
  message: string;
  /** PodScheduled=False reason: Unschedulable or SchedulerError. */
  reason?: "Unschedulable" | "SchedulerError";
  /** The plugins that rejected the pod (they decide which cluster events retry it). */
  unschedulablePlugins?: string[];
  nominatedNode?: string;
  /** Pods evicted by preemption for this pod, "namespace/name on node". */
  preempted?: string[];
  /** Nodes looked at and nodes that fit, when the pod was placed. */
  evaluatedNodes?: number;
  feasibleNodes?: number;
  score?: number;
  /** Milliseconds since the epoch (the scheduler's clock). */
  time: number;
  explanation?: AttemptExplanation;
}
