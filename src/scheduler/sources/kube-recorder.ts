// What kube-scheduler writes to the API about each attempt (schedule_one.go handleSchedulingFailure,
// updatePod, and the binding cycle's success): on failure, the pod's PodScheduled=False condition
// (reason Unschedulable or SchedulerError, the full message) and its nominatedNodeName, as a strategic
// merge PATCH of pods/status touching only those; and events.k8s.io/v1 Events — Warning
// FailedScheduling (action Scheduling) and Normal Scheduled (action Binding). Writes are best effort:
// they run beside scheduling, never before it, and a failed write is logged, not retried.
import { PatchStrategy, V1MicroTime, setHeaderOptions, type EventsV1Event } from "@kubernetes/client-node";
import type { Pod, PodCondition } from "kubernetes-types/core/v1";
import { apiErrorMessage, isNotFound, type KubeClient } from "../../kube";
import type { Clock, Logger } from "../../util";
import type { AttemptResult } from "../framework/result";

/** validation.NoteLengthLimit: an event's note is cut to 1024 bytes, ending " ..." (truncateMessage). */
export const NOTE_LENGTH_LIMIT = 1024;

export function truncateNote(message: string): string {
  const bytes = Buffer.from(message, "utf8");
  if (bytes.length <= NOTE_LENGTH_LIMIT) return message;
  const suffix = " ...";
  // Cut on a character boundary: the validator counts bytes, and a half character is not text.
  let cut = NOTE_LENGTH_LIMIT - suffix.length;
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return bytes.subarray(0, cut).toString("utf8") + suffix;
}

export interface StatusPatch {
  status: { conditions: PodCondition[]; nominatedNodeName?: string | null };
}

/**
 * updatePod: the patch recording a failed attempt, or undefined when the pod already says exactly
 * that (podutil.UpdatePodCondition reports no change, and the nomination is the same). The transition
 * time moves only when the condition's status changes.
 */
export function failurePatch(pod: Pod, attempt: AttemptResult, now: Date): StatusPatch | undefined {
  const reason = attempt.reason ?? (attempt.outcome === "SchedulerError" ? "SchedulerError" : "Unschedulable");
  const existing = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  const conditionChanged = !existing || existing.status !== "False" || existing.reason !== reason || existing.message !== attempt.message;
  const nominated = attempt.nominatedNode ?? "";
  const nominationChanged = nominated !== (pod.status?.nominatedNodeName ?? "");
  if (!conditionChanged && !nominationChanged) return undefined;
  const lastTransitionTime =
    existing?.status === "False" && existing.lastTransitionTime ? existing.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const patch: StatusPatch = { status: { conditions: [{ type: "PodScheduled", status: "False", reason, message: attempt.message, lastTransitionTime }] } };
  // null deletes the field in a merge patch: a cleared nomination.
  if (nominationChanged) patch.status.nominatedNodeName = nominated || null;
  return patch;
}

export interface RecorderOptions {
  client: KubeClient;
  /**
   * reportingController when the pod is no longer known; otherwise it is the pod's schedulerName, the
   * name of the profile that tried it (each profile has its own recorder upstream).
   */
  schedulerName: string;
  /** The host's name: reportingInstance is "<reportingController>-<hostname>" (events.NewRecorder). */
  hostname: string;
  clock: Clock;
  log: Logger;
}

export class KubeRecorder {
  private readonly writes = new Set<Promise<void>>();
  private eventSeq = 0;

  constructor(private readonly o: RecorderOptions) {}

  /**
   * Records one attempt. `pod` is the pod as the informer shows it now: a pod gone or bound by
   * someone else meanwhile gets no PodScheduled=False (upstream patches it anyway; a bound pod
   * claiming it is unschedulable would only mislead).
   */
  record(attempt: AttemptResult, pod: Pod | undefined): void {
    const target = pod ?? { metadata: { namespace: attempt.namespace, name: attempt.name, uid: attempt.uid } };
    if (attempt.outcome === "Scheduled") {
      this.event(target, "Normal", "Scheduled", "Binding", attempt.message);
      return;
    }
    this.event(target, "Warning", "FailedScheduling", "Scheduling", truncateNote(attempt.message));
    if (!pod || pod.spec?.nodeName || pod.metadata?.uid !== attempt.uid) return;
    const patch = failurePatch(pod, attempt, new Date(this.o.clock.now()));
    if (patch) this.track(this.patchStatus(pod, patch));
  }

  /** Resolves when every write started so far has finished. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  private track(work: Promise<void>): void {
    this.writes.add(work);
    void work.finally(() => this.writes.delete(work));
  }

  private async patchStatus(pod: Pod, patch: StatusPatch): Promise<void> {
    const name = pod.metadata?.name ?? "";
    const namespace = pod.metadata?.namespace || "default";
    try {
      await this.o.client.core.patchNamespacedPodStatus({ name, namespace, body: patch }, setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch));
    } catch (e) {
      // A pod deleted meanwhile has no status to record.
      if (!isNotFound(e)) this.o.log.warn("Error updating pod status", { pod: `${namespace}/${name}`, err: apiErrorMessage(e) });
    }
  }

  private event(pod: Pod, type: "Normal" | "Warning", reason: string, action: string, note: string): void {
    const now = new Date(this.o.clock.now());
    const namespace = pod.metadata?.namespace || "default";
    const name = pod.metadata?.name ?? "";
    // "<regarding name>.<unix nanoseconds in hex>" (events.EventRecorder); the sequence keeps two
    // events of one millisecond apart.
    const controller = pod.spec?.schedulerName || this.o.schedulerName;
    const nanos = BigInt(now.getTime()) * 1_000_000n + BigInt(this.eventSeq++ % 1_000_000);
    const body: EventsV1Event = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: `${name}.${nanos.toString(16)}`, namespace },
      eventTime: new V1MicroTime(now.getTime()),
      reportingController: controller,
      reportingInstance: `${controller}-${this.o.hostname}`,
      action,
      reason,
      type,
      note,
      regarding: { apiVersion: "v1", kind: "Pod", namespace, name, uid: pod.metadata?.uid, resourceVersion: pod.metadata?.resourceVersion },
    };
    this.track(
      this.o.client.events.createNamespacedEvent({ namespace, body }).then(
        () => undefined,
        (e) => this.o.log.warn("event not recorded", { reason, pod: `${namespace}/${name}`, err: apiErrorMessage(e) }),
      ),
    );
  }
}
