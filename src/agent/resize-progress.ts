// ResizeProgress: the PodResizeInProgress condition around each sync of a running pod, as the 1.36
// kubelet's SyncPod keeps it. Before the sync: while a running container's allocated resources are not
// yet applied (podResizeInProgress) the condition stays, with the generation of the resize that set it;
// once none is left it goes, with a Normal ResizeCompleted event. After the sync: a resize that failed
// (the runtime refused it, a memory limit below the usage) sets it with reason Error and the message,
// with a Warning ResizeError event when that is news; the next sync tries again. A sync that resized
// anything has the pod's statuses read again (the kubelet's RequestPodReinspect): the containers'
// resources changed, their state did not.
import type { Pod } from "kubernetes-types/core/v1";
import { podRef } from "../api";
import { type EventRecorder, podReference } from "../events";
import type { PodStatus } from "../pleg";
import { RESIZE_ERROR, type ResizeConditions } from "../status";
import { resizeSummary } from "./allocation-manager";
import { type ActuatedLookup, podResizeInProgress } from "./pod-resize";
import type { SyncResult } from "./pod-sync";

export interface ResizeProgressOptions {
  conditions: ResizeConditions;
  events: EventRecorder;
  actuatedOf(uid: string): ActuatedLookup;
  /** The PLEG's RequestPodReinspect, when it has one. */
  reinspect?(uid: string): void;
}

export class ResizeProgress {
  constructor(private readonly o: ResizeProgressOptions) {}

  beforeSync(pod: Pod, st: PodStatus | undefined): void {
    const uid = podRef(pod).uid;
    if (podResizeInProgress(pod, st, this.o.actuatedOf(uid))) {
      this.o.conditions.setInProgress(uid, "", "", pod.metadata?.generation ?? 0);
      return;
    }
    const generation = this.o.conditions.clearInProgress(uid);
    if (generation !== undefined)
      this.o.events.event(
        podReference(pod),
        "Normal",
        "ResizeCompleted",
        `Pod resize completed: ${resizeSummary({ ...pod, metadata: { ...pod.metadata, generation } })}`,
      );
  }

  afterSync(pod: Pod, r: SyncResult): void {
    if (!r.resize) return;
    const uid = podRef(pod).uid;
    this.o.reinspect?.(uid);
    if (!r.resize.error) return;
    const { generation, changed } = this.o.conditions.setInProgress(uid, RESIZE_ERROR, r.resize.error, pod.metadata?.generation ?? 0);
    if (changed)
      this.o.events.event(
        podReference(pod),
        "Warning",
        "ResizeError",
        `Pod resize error: ${resizeSummary({ ...pod, metadata: { ...pod.metadata, generation } }, r.resize.error)}`,
      );
  }
}
