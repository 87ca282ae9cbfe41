// The API status of each pod the workers have, as the agent reports it (after every sync, on GET /pods):
// computeApiPodStatus (src/status) over the spec, the cached runtime status, the last sync's results,
// the prober's results and the container notes, computed again only when one of those has changed.
// The last reported status of each worker is kept here, beside the workers, not in them: the pod
// workers lend their state out read-only.
import type { Pod, PodStatus as ApiPodStatus, ResourceRequirements } from "kubernetes-types/core/v1";
import type { PodProber } from "../prober";
import { computeApiPodStatus, qosClass, type ResizeConditions, type Waiting, withResizeStatus } from "../status";
import { apiTime, type Clock } from "../util";
import type { ContainerNotes } from "./container-notes";
import type { PodWorkerView } from "./pod-workers";
import type { RuntimeConfigOptions } from "./runtime-config";
import type { TerminationMessages } from "./termination-message";
import type { PodStatusReader } from "../pleg";

export interface ApiStatusesOptions {
  /** The CRI runtime's name: container IDs are `<runtimeName>://<id>`. */
  runtimeName: string;
  cache: PodStatusReader;
  probes: PodProber;
  notes: ContainerNotes;
  terminationMessages: TerminationMessages;
  /** Whether the container's postStart hook still runs (PodSyncer): then it is neither started nor ready. */
  postStartRunning(containerId: string): boolean;
  runtimeConfig: Pick<RuntimeConfigOptions, "hostIP" | "hostIPs">;
  clock: Clock;
  /**
   * In-place resize (src/status resize-status.ts): each pod's resize conditions and what each container
   * was last applied (actuated); `version` changes with either. No resize fields without it.
   */
  resize?: {
    conditions: ResizeConditions;
    actuated: (uid: string, containerName: string) => ResourceRequirements | undefined;
    version: () => number;
  };
}

export class ApiStatuses {
  /** Each worker's last reported API status. */
  private readonly reported = new WeakMap<PodWorkerView, ApiPodStatus>();
  /** Each worker's last computed API status and what it was computed from (see compute). */
  private readonly statusMemo = new WeakMap<PodWorkerView, { inputs: unknown[]; status: ApiPodStatus }>();
  /** Each worker's last answer to pods(). */
  private readonly podMemo = new WeakMap<PodWorkerView, { spec: Pod; pod: Pod }>();

  constructor(private readonly o: ApiStatusesOptions) {}

  /** The status last reported for the worker (undefined before its first). */
  last(s: PodWorkerView): ApiPodStatus | undefined {
    return this.reported.get(s);
  }

  /** After a worker step: the status computed afresh, noted and kept as the worker's last. */
  afterSync(s: PodWorkerView): ApiPodStatus {
    const status = this.compute(s);
    this.reported.set(s, status);
    this.noteReported(status);
    return status;
  }

  /** Every pod with its live status, computed from the newest cached runtime status. */
  pods(states: readonly PodWorkerView[]): Pod[] {
    return states.map((s) => {
      const before = this.reported.get(s);
      const status = this.compute(s);
      this.reported.set(s, status);
      // compute hands back the same object while nothing changed: only a new status has news to note.
      if (status !== before) this.noteReported(status);
      // The same object while neither the spec nor the status changed, so that a reader can keep
      // what it made of it (the server keeps each pod's JSON).
      const spec = s.restartRequested ?? s.pod;
      const last = this.podMemo.get(s);
      if (last && last.spec === spec && last.pod.status === status) return last.pod;
      const pod: Pod = { apiVersion: "v1", kind: "Pod", ...spec, status };
      this.podMemo.set(s, { spec, pod });
      return pod;
    });
  }

  private compute(s: PodWorkerView): ApiPodStatus {
    const { o } = this;
    // A rejected pod's status is the refusal alone, as the kubelet's rejectPod sets it: no container
    // statuses (nothing was created) and no conditions, so `kubectl get pods` shows the reason.
    if (s.rejected && s.failed) return { phase: "Failed", reason: s.failed.reason, message: s.failed.message, qosClass: qosClass(s.pod) };
    // A pod added again while its previous instance (same UID) terminates: it waits, and says why.
    if (s.restartRequested) {
      const pod = s.restartRequested;
      const why: Waiting = {
        reason: "ContainerCreating",
        message: "the pod's previous instance (same UID) is still terminating; it starts again once that has finished",
      };
      const waiting = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, why]));
      return computeApiPodStatus({
        pod,
        runtimeName: o.runtimeName,
        runtime: undefined,
        waiting,
        hostIP: o.runtimeConfig.hostIP,
        hostIPs: o.runtimeConfig.hostIPs,
        startTime: s.seen,
        now: apiTime(o.clock.now()),
      });
    }
    const probed = (name: string) => [...(s.pod.spec?.containers ?? []), ...(s.pod.spec?.initContainers ?? [])].find((c) => c.name === name);
    // GET /pods asks for every pod's status each time, and a monitor may ask every few milliseconds:
    // the status is computed again only when something it is computed from has changed — the spec,
    // the sync's results, the cached runtime status, and each instance's probe results and notes.
    // The time only dates a condition that changes, so the same inputs give the same status.
    const runtime = o.cache.get(s.uid)?.status;
    const inputs: unknown[] = [s.pod, s.waiting, s.failed, s.seen, runtime, o.resize?.conditions.version, o.resize?.version()];
    for (const c of runtime?.containerStatuses ?? []) {
      const name = c.metadata?.name ?? "";
      const note = o.notes.get(c.id);
      // A note counts only where the prober has no result (as ready/started below read them): noting
      // what was reported must not itself make the next read a new status.
      inputs.push(
        o.probes.readiness(s.uid, name, c.id) ?? note?.ready,
        o.probes.started(s.uid, name, c.id) ?? note?.started,
        note?.killMessage,
        o.postStartRunning(c.id),
      );
    }
    const previous = this.reported.get(s);
    const memo = this.statusMemo.get(s);
    if (memo && memo.status === previous && memo.inputs.length === inputs.length && memo.inputs.every((v, i) => v === inputs[i])) return memo.status;
    const computed = computeApiPodStatus({
      pod: s.pod,
      runtimeName: o.runtimeName,
      // Until the prober has the pod (just after a restart) the last reported value stands.
      // A container whose postStart hook still runs is neither started nor ready (the kubelet's pod
      // worker reports it only after startContainer, hook included, has returned).
      ready: (name, id) =>
        !o.postStartRunning(id) &&
        (o.probes.readiness(s.uid, name, id) ?? o.notes.get(id)?.ready ?? !(probed(name)?.readinessProbe || probed(name)?.startupProbe)),
      started: (name, id) => !o.postStartRunning(id) && (o.probes.started(s.uid, name, id) ?? o.notes.get(id)?.started ?? !probed(name)?.startupProbe),
      killMessage: (id) => o.notes.get(id)?.killMessage,
      terminationMessage: (c) => o.terminationMessages.get(s.pod, c),
      runtime,
      waiting: s.waiting,
      volumesNotReady: s.volumesNotReady,
      hostIP: o.runtimeConfig.hostIP,
      hostIPs: o.runtimeConfig.hostIPs,
      startTime: s.seen,
      failed: s.failed,
      now: apiTime(o.clock.now()),
      previous,
    });
    const resize = o.resize;
    const status = resize
      ? withResizeStatus(computed, {
          pod: s.pod,
          runtime,
          actuated: (name) => resize.actuated(s.uid, name),
          conditions: resize.conditions.list(s.uid),
          previous,
        })
      : computed;
    this.statusMemo.set(s, { inputs, status });
    return status;
  }

  /**
   * Keeps what the status says of each running container for the next start: after every sync, and
   * whenever pods() reports a status. A readiness change wakes the pod's worker too, but GET /pods
   * shows it as soon as the prober has it, before the sync loop delivers it; an agent stopped in
   * between (the loop stops first) would start again from the older note and report the opposite.
   */
  private noteReported(status: ApiPodStatus): void {
    for (const c of [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])]) {
      // Not while its postStart hook runs: "not started yet" is the hook's, not the container's to keep.
      const id = c.containerID?.replace(/^[a-z]+:\/\//, "");
      if (c.state?.running && id && !this.o.postStartRunning(id)) this.o.notes.update(id, { ready: c.ready, started: c.started });
    }
  }
}
