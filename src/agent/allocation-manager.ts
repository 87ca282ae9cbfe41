// AllocationManager: what the node has allocated to each pod's containers, the 1.36 kubelet's
// pkg/kubelet/allocation. The spec a pod's source has (the API pod) may ask for other resources than
// the node has admitted: an in-place resize (`kubectl patch --subresource resize`) changes the API pod's
// container resources at once, and the node decides whether and when they become the pod's.
//
// - A new pod is admitted with its allocation if one is recorded (an agent restarted while a resize
//   was pending admits what it had allocated), else with its spec; once admitted, that is recorded.
// - The pod workers sync the allocated pod (fromAllocation): the spec with each resizable container's
//   allocated resources (app containers and sidecars; regular init containers are never resized here).
// - A pod whose spec asks for other resources than allocated has a pending resize. It is admitted
//   against the node like a new pod (the admission chain over the other active pods, as allocated, only
//   asking: nothing is preempted for a resize): admitted, the new resources are allocated
//   (PodResizeInProgress, event ResizeStarted) and the pod is synced, which applies them; refused, the
//   PodResizePending condition says why — reason Infeasible when no node could ever fit it, Deferred
//   otherwise (1.36: a resize beyond the node's allocatable is Deferred, with the fit message
//   "Node didn't have enough resource: cpu, requested: …, used: …, capacity: …") — with a Warning
//   event ResizeDeferred or ResizeInfeasible. A deferred resize is tried again when a pod is removed,
//   reaches a terminal phase (pod_terminated) or its spec changes, and every 3 minutes (the first time after 30 s); requests that do not grow are
//   tried first, then by priority, QoS class, and how long they have waited (sortPendingResizes).
// - The allocation is kept in <root>/allocated_pods_state.json (resource-state.ts) and forgotten with
//   the pod.
//
// Static pods and pods from files, URLs or the push API: the API server refuses to resize a mirror pod
// ("static pods cannot be resized"), and an edited manifest is a new pod (a new UID), so their
// resources only change by a restart, as with the kubelet.
import type { Container, Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import type { PodAdmitResult } from "../admission";
import { isTerminalPhase, podRef } from "../api";
import { podReference, type EventRecorder } from "../events";
import { qosClass, RESIZE_INFEASIBLE, type ResizeConditions } from "../status";
import type { Clock, Logger } from "../util";
import { resourceAmounts } from "./pod-resize";
import type { ContainerResourceMap, PodResourceState } from "./resource-state";

/** initialRetryDelay and retryDelay of the kubelet's allocation manager. */
export const RESIZE_FIRST_RETRY_MS = 30_000;
export const RESIZE_RETRY_MS = 3 * 60_000;

export interface AllocationManagerOptions {
  allocated: PodResourceState;
  conditions: ResizeConditions;
  /** Whether the pod, as it asks, fits the node beside the other active pods (answered only, nothing preempted). */
  admitResize(pod: Pod): PodAdmitResult;
  /** The pod's allocation changed or a resize condition did: its worker syncs it again. */
  syncPod(pod: Pod): void;
  events: EventRecorder;
  clock: Clock;
  log: Logger;
}

/** IsResizableContainer as nodeagent has it: app containers and sidecars. */
export function isResizable(c: Container, init: boolean): boolean {
  return !init || c.restartPolicy === "Always";
}

function resizable(pod: Pod): Array<{ c: Container; init: boolean }> {
  return [...(pod.spec?.initContainers ?? []).map((c) => ({ c, init: true })), ...(pod.spec?.containers ?? []).map((c) => ({ c, init: false }))].filter(
    ({ c, init }) => isResizable(c, init),
  );
}

const same = (a: ResourceRequirements | undefined, b: ResourceRequirements | undefined) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});

/** The allocation a pod's spec asks for: each resizable container's resources. */
export function allocationFromPod(pod: Pod): Record<string, ResourceRequirements> {
  return Object.fromEntries(resizable(pod).map(({ c }) => [c.name, JSON.parse(JSON.stringify(c.resources ?? {})) as ResourceRequirements]));
}

/** updatePodFromAllocation: the pod with its allocated resources, and whether that differs from the pod. */
export function podWithAllocation(pod: Pod, allocated: ContainerResourceMap | undefined): { pod: Pod; updated: boolean } {
  if (!allocated) return { pod, updated: false };
  let updated = false;
  const swap = (c: Container, init: boolean): Container => {
    const a = allocated[c.name];
    if (!isResizable(c, init) || a === undefined || same(c.resources, a)) return c;
    updated = true;
    return { ...c, resources: JSON.parse(JSON.stringify(a)) as ResourceRequirements };
  };
  const containers = pod.spec?.containers.map((c) => swap(c, false)) ?? [];
  const initContainers = pod.spec?.initContainers?.map((c) => swap(c, true));
  if (!updated) return { pod, updated };
  return { pod: { ...pod, spec: { ...pod.spec!, containers, ...(initContainers ? { initContainers } : {}) } }, updated };
}

/** The resource summary of the kubelet's resize events (events/resize.go): each container's resources, the generation, the error. */
export function resizeSummary(pod: Pod, error?: string): string {
  const list = (cs: Container[] | undefined) => (cs?.length ? cs.map((c) => ({ name: c.name, resources: c.resources ?? {} })) : undefined);
  return JSON.stringify({
    ...(pod.spec?.initContainers?.length ? { initContainers: list(pod.spec.initContainers) } : {}),
    ...(pod.spec?.containers.length ? { containers: list(pod.spec.containers) } : {}),
    generation: pod.metadata?.generation ?? 0,
    ...(error ? { error } : {}),
  });
}

/** Total cpu and memory requests of the pod's app containers (the comparison isResizeIncreasingRequests needs). */
function requests(pod: Pod): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of pod.spec?.containers ?? []) {
    const a = resourceAmounts(c.resources);
    cpu += a.cpuRequest;
    memory += a.memoryRequest;
  }
  return { cpu, memory };
}

export class AllocationManager {
  /** The newest spec each pod's source has, by UID. */
  private readonly desired = new Map<string, Pod>();
  /** UIDs with a resize not yet allocated, in the order they are tried. */
  private pending: string[] = [];
  /** When each pending resize was first deferred (for the order). */
  private readonly pendingSince = new Map<string, number>();

  constructor(private readonly o: AllocationManagerOptions) {}

  /** The pod with its allocated resources (what its worker syncs). */
  fromAllocation(pod: Pod): Pod {
    return podWithAllocation(pod, this.o.allocated.pod(podRef(pod).uid)).pod;
  }

  /** Whether the pod's spec asks for other resources than allocated. */
  private differs(pod: Pod): boolean {
    return podWithAllocation(pod, this.o.allocated.pod(podRef(pod).uid)).updated;
  }

  /**
   * AddPod: the pod admitted with its recorded allocation, if any (the admit function runs the chain);
   * admitted, its allocation is recorded, and a spec that asks for more is a pending resize.
   */
  addPod(pod: Pod, admit: (allocated: Pod) => PodAdmitResult): PodAdmitResult {
    const uid = podRef(pod).uid;
    this.desired.set(uid, pod);
    this.o.conditions.backfill(pod);
    const allocated = this.fromAllocation(pod);
    const r = admit(allocated);
    if (!r.admit) return r;
    this.o.allocated.setPod(uid, allocationFromPod(allocated));
    if (this.differs(pod)) this.push(uid);
    return r;
  }

  /** A pod already admitted (known to the workers) seen again, or updated: a changed spec is a resize to consider. */
  updatePod(pod: Pod): void {
    const uid = podRef(pod).uid;
    const before = this.desired.get(uid);
    this.desired.set(uid, pod);
    if (!this.o.allocated.pod(uid)) return;
    // recordResizeOperations: only a change of the resources asked for is a resize to consider.
    if (before && JSON.stringify(allocationFromPod(before)) === JSON.stringify(allocationFromPod(pod))) return;
    if (this.differs(pod)) {
      this.push(uid);
      this.retryPendingResizes("pod_updated");
    } else {
      // A pending resize reverted to what is allocated.
      this.o.conditions.clearPending(uid);
      this.forgetPending(uid);
    }
  }

  /**
   * A pod's status changed in its source (HandlePodReconcile): one that has just reached a terminal
   * phase no longer holds what it was allocated, so deferred resizes are tried again (pod_terminated).
   */
  reconcilePod(pod: Pod): void {
    const uid = podRef(pod).uid;
    const before = this.desired.get(uid);
    if (before) this.desired.set(uid, pod);
    if (this.pending.length && before && isTerminalPhase(pod.status?.phase) && !isTerminalPhase(before.status?.phase))
      this.retryPendingResizes("pod_terminated");
  }

  /** The pod is gone from its source: its allocation and conditions go; what it held may let others grow. */
  removePod(uid: string): void {
    this.desired.delete(uid);
    this.forgetPending(uid);
    this.o.allocated.remove(uid);
    this.o.conditions.remove(uid);
    if (this.pending.length) this.retryPendingResizes("pods_removed");
  }

  /** RemoveOrphanedPods: allocations of pods none of `known` is. */
  prune(known: ReadonlySet<string>): void {
    this.o.allocated.prune(known);
  }

  hasPendingResizes(): boolean {
    return this.pending.length > 0;
  }

  /** The periodic retry of deferred resizes, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    let delay = RESIZE_FIRST_RETRY_MS;
    while (!signal.aborted) {
      try {
        await this.o.clock.sleep(delay, signal);
      } catch {
        return;
      }
      this.retryPendingResizes("periodic_retry");
      delay = RESIZE_RETRY_MS;
    }
  }

  private push(uid: string): void {
    if (!this.pending.includes(uid)) this.pending.push(uid);
    if (!this.pendingSince.has(uid)) this.pendingSince.set(uid, this.o.clock.now());
  }

  private forgetPending(uid: string): void {
    this.pending = this.pending.filter((u) => u !== uid);
    this.pendingSince.delete(uid);
  }

  /** sortPendingResizes: requests that do not grow first, then higher priority, Guaranteed, the longest waiting. */
  private sorted(): string[] {
    const key = (uid: string) => {
      const pod = this.desired.get(uid)!;
      const before = requests(this.fromAllocation(pod));
      const after = requests(pod);
      return {
        growing: after.cpu > before.cpu || after.memory > before.memory,
        priority: pod.spec?.priority ?? 0,
        guaranteed: qosClass(pod) === "Guaranteed",
        since: this.pendingSince.get(uid) ?? 0,
      };
    };
    return this.pending
      .filter((uid) => this.desired.has(uid))
      .map((uid) => ({ uid, k: key(uid) }))
      .sort(
        (a, b) =>
          Number(a.k.growing) - Number(b.k.growing) || b.k.priority - a.k.priority || Number(b.k.guaranteed) - Number(a.k.guaranteed) || a.k.since - b.k.since,
      )
      .map((x) => x.uid);
  }

  /** RetryPendingResizes: each pending resize admitted if it now fits; deferred ones stay pending. */
  retryPendingResizes(trigger: string): void {
    const next: string[] = [];
    for (const uid of this.sorted()) {
      const pod = this.desired.get(uid)!;
      const before = JSON.stringify(this.o.conditions.list(uid));
      const allocated = this.handleResize(pod);
      if (this.o.conditions.isDeferred(uid)) next.push(uid);
      else if (!this.o.conditions.isInfeasible(uid)) this.pendingSince.delete(uid);
      if (allocated || JSON.stringify(this.o.conditions.list(uid)) !== before) this.o.syncPod(pod);
    }
    this.pending = next;
    if (next.length) this.o.log.info("pod resizes still deferred", { trigger, pods: next.length });
  }

  /** handlePodResourcesResize: true when the new resources were allocated. */
  private handleResize(pod: Pod): boolean {
    const uid = podRef(pod).uid;
    const generation = pod.metadata?.generation ?? 0;
    if (!this.differs(pod)) {
      this.o.conditions.clearPending(uid);
      return false;
    }
    const r = this.o.admitResize(pod);
    if (r.admit) {
      this.o.allocated.setPod(uid, allocationFromPod(pod));
      this.o.conditions.clearPending(uid);
      this.o.conditions.clearInProgress(uid);
      this.o.conditions.setInProgress(uid, "", "", generation);
      this.o.events.event(podReference(pod), "Normal", "ResizeStarted", `Pod resize started: ${resizeSummary(pod)}`);
      this.o.log.info("pod resize allocated", { pod: `${podRef(pod).namespace}/${podRef(pod).name}`, generation });
      return true;
    }
    if (this.o.conditions.setPending(uid, r.reason, r.message, generation)) {
      const infeasible = r.reason === RESIZE_INFEASIBLE;
      this.o.events.event(
        podReference(pod),
        "Warning",
        infeasible ? "ResizeInfeasible" : "ResizeDeferred",
        `Pod resize ${r.reason}: ${resizeSummary(pod, r.message)}`,
      );
      this.o.log.info("pod resize not allocated", { pod: `${podRef(pod).namespace}/${podRef(pod).name}`, reason: r.reason, message: r.message });
    }
    return false;
  }
}
