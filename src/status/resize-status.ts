// What an in-place resize (InPlacePodVerticalScaling, GA in 1.35) adds to a pod's status, as the 1.36
// kubelet reports it:
//
// - containerStatuses[].allocatedResources: the requests the node has allocated to the container (the
//   allocated pod's, which the agent syncs; the API pod's spec may ask for more, not yet admitted).
// - containerStatuses[].resources: what the container actually has. For a running instance the
//   runtime's ContainerStatus.resources (cpu shares → request, quota/period → limit, the memory limit),
//   else what the agent last applied to it (the actuated resources, the kubelet's actuated checkpoint:
//   containerd 1.6 reports none), else the value last reported for the same instance; values the
//   runtime cannot tell (the memory request) and every value of a container that is not running are
//   the allocated ones (the kubelet's convertContainerStatusResources). An API server admits a resize
//   only once a running container's status carries `resources` (isPodResizeRequestSupported).
// - the PodResizePending (reason Infeasible or Deferred, the admission's message) and
//   PodResizeInProgress (reason Error with a message when the last attempt failed) conditions, kept
//   here per pod UID as the kubelet's status manager keeps them (ResizeConditions), and cleared when the
//   pod is terminal (determinePodResizeStatus).
import type {
  Container,
  PodCondition,
  PodStatus as ApiPodStatus,
  ContainerStatus as ApiContainerStatus,
  Pod,
  ResourceRequirements,
} from "kubernetes-types/core/v1";
import { parseQuantity, Quantity } from "../api";
import type { ContainerStatus } from "../cri";
import type { PodStatus } from "../pleg";
import { isInit } from "./container-kinds";

export const POD_RESIZE_PENDING = "PodResizePending";
export const POD_RESIZE_IN_PROGRESS = "PodResizeInProgress";
/** v1.PodReasonInfeasible, v1.PodReasonDeferred, v1.PodReasonError. */
export const RESIZE_INFEASIBLE = "Infeasible";
export const RESIZE_DEFERRED = "Deferred";
export const RESIZE_ERROR = "Error";

/** cm.MinShares (2) and cm.MinMilliCPULimit (10), below which the runtime's value is not told apart. */
const MIN_SHARES = 2;
const MIN_MILLI_CPU_LIMIT = 10;

/** A pod condition with 1.33's observedGeneration (newer than the kubernetes-types the project uses). */
export type ResizeCondition = PodCondition & { observedGeneration?: number };

interface PodResizeConditions {
  pending?: ResizeCondition;
  inProgress?: ResizeCondition;
}

/**
 * The resize conditions of each pod (the kubelet's status manager podResizeConditions): set by the
 * allocation manager (pending) and the pod sync (in progress), read into every status computed.
 * `version` changes with every change, so that a cached status is computed again.
 */
export class ResizeConditions {
  private readonly pods = new Map<string, PodResizeConditions>();
  version = 0;

  constructor(private readonly now: () => string) {}

  private updated(type: string, old: ResizeCondition | undefined, reason: string, message: string, generation: number): ResizeCondition {
    const now = this.now();
    this.version++;
    return {
      type,
      status: "True",
      lastProbeTime: now,
      lastTransitionTime: old && old.reason === reason ? old.lastTransitionTime : now,
      ...(generation ? { observedGeneration: generation } : {}),
      ...(reason ? { reason } : {}),
      ...(message ? { message } : {}),
    };
  }

  /** The conditions of the pod, PodResizePending first. */
  list(uid: string): ResizeCondition[] {
    const c = this.pods.get(uid);
    return [c?.pending, c?.inProgress].filter((x): x is ResizeCondition => x !== undefined);
  }

  /**
   * SetPodResizePendingCondition: any reason but Infeasible is Deferred. True when the reason or the
   * generation changed (then the caller records the event).
   */
  setPending(uid: string, reason: string, message: string, generation: number): boolean {
    const r = reason === RESIZE_INFEASIBLE ? RESIZE_INFEASIBLE : RESIZE_DEFERRED;
    const c = this.pods.get(uid) ?? {};
    const old = c.pending;
    this.pods.set(uid, { ...c, pending: this.updated(POD_RESIZE_PENDING, old, r, message, generation) });
    return !old || old.reason !== r || (old.observedGeneration ?? 0) !== generation;
  }

  /**
   * SetPodResizeInProgressCondition: an existing condition keeps its generation (clear it first to
   * move it) and its reason and message unless new ones are given. Its generation, and whether it changed.
   */
  setInProgress(uid: string, reason: string, message: string, generation: number): { generation: number; changed: boolean } {
    const c = this.pods.get(uid) ?? {};
    const old = c.inProgress;
    if (old) {
      if (!reason && !message) {
        reason = old.reason ?? "";
        message = old.message ?? "";
      }
      generation = old.observedGeneration ?? 0;
      if ((old.reason ?? "") === reason && (old.message ?? "") === message) return { generation, changed: false };
    }
    this.pods.set(uid, { ...c, inProgress: this.updated(POD_RESIZE_IN_PROGRESS, old, reason, message, generation) });
    return { generation, changed: true };
  }

  clearPending(uid: string): void {
    const c = this.pods.get(uid);
    if (!c?.pending) return;
    this.version++;
    this.pods.set(uid, { inProgress: c.inProgress });
  }

  /** ClearPodResizeInProgressCondition: the cleared condition's generation, undefined when there was none. */
  clearInProgress(uid: string): number | undefined {
    const c = this.pods.get(uid);
    if (!c?.inProgress) return undefined;
    this.version++;
    this.pods.set(uid, { pending: c.pending });
    return c.inProgress.observedGeneration ?? 0;
  }

  isDeferred(uid: string): boolean {
    return this.pods.get(uid)?.pending?.reason === RESIZE_DEFERRED;
  }
  isInfeasible(uid: string): boolean {
    return this.pods.get(uid)?.pending?.reason === RESIZE_INFEASIBLE;
  }

  /** BackfillPodResizeConditions: what the API pod's status says, after a restart. */
  backfill(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    for (const c of pod.status?.conditions ?? []) {
      const cur = this.pods.get(uid) ?? {};
      if (c.type === POD_RESIZE_PENDING) this.pods.set(uid, { ...cur, pending: { ...c } });
      else if (c.type === POD_RESIZE_IN_PROGRESS) this.pods.set(uid, { ...cur, inProgress: { ...c } });
      else continue;
      this.version++;
    }
  }

  remove(uid: string): void {
    if (this.pods.delete(uid)) this.version++;
  }
}

/** A milli-CPU amount as the kubelet's resource.NewMilliQuantity(…, DecimalSI) prints it. */
export function milliCpuQuantity(milli: number): string {
  return new Quantity(BigInt(milli), -3, "DecimalSI").toString();
}
/** A byte amount as resource.NewQuantity(…, BinarySI) prints it. */
export function bytesQuantity(bytes: number): string {
  return new Quantity(BigInt(bytes), 0, "BinarySI").toString();
}

/** The runtime's view of a container's resources (toKubeContainerResources): undefined when it reports none. */
export function runtimeResources(c: ContainerStatus): { cpuRequest?: number; cpuLimit?: number; memoryLimit?: number } | undefined {
  const l = c.resources?.linux;
  if (!l) return undefined;
  const out: { cpuRequest?: number; cpuLimit?: number; memoryLimit?: number } = {};
  const period = Number(l.cpuPeriod);
  const quota = Number(l.cpuQuota);
  if (period > 0 && quota !== -1) {
    const milli = Math.trunc((quota * 1000) / period);
    if (milli > 0) out.cpuLimit = milli;
  }
  const shares = Number(l.cpuShares);
  if (shares >= MIN_SHARES) out.cpuRequest = Math.ceil((shares * 1000) / 1024);
  if (Number(l.memoryLimitInBytes) > 0) out.memoryLimit = Number(l.memoryLimitInBytes);
  return out.cpuLimit !== undefined || out.cpuRequest !== undefined || out.memoryLimit !== undefined ? out : undefined;
}

function milliOf(q: string | number | undefined): number {
  return q === undefined ? 0 : parseQuantity(q).milli();
}

/** What status.resources shows for a running instance (convertContainerStatusResources). */
export function runningResources(
  allocated: ResourceRequirements | undefined,
  runtime: ReturnType<typeof runtimeResources>,
  actuated: ResourceRequirements | undefined,
  previous: ResourceRequirements | undefined,
): ResourceRequirements {
  const out: ResourceRequirements = JSON.parse(JSON.stringify(allocated ?? {}));
  // What the runtime does not report comes from the actuated record, then from the last report.
  const fill = (kind: "limits" | "requests", name: "cpu" | "memory", fromRuntime: string | undefined) => {
    const list = out[kind];
    if (!list) return;
    if (fromRuntime !== undefined) list[name] = fromRuntime;
    else if (actuated?.[kind]?.[name] !== undefined) list[name] = actuated[kind]![name]!;
    else if (previous?.[kind]?.[name] !== undefined) list[name] = previous[kind]![name]!;
  };
  const cpuLimit =
    runtime?.cpuLimit !== undefined && (runtime.cpuLimit > MIN_MILLI_CPU_LIMIT || milliOf(allocated?.limits?.cpu) > MIN_MILLI_CPU_LIMIT)
      ? milliCpuQuantity(runtime.cpuLimit)
      : undefined;
  const cpuRequest =
    runtime?.cpuRequest !== undefined && (runtime.cpuRequest > MIN_SHARES || milliOf(allocated?.requests?.cpu) > MIN_SHARES)
      ? milliCpuQuantity(runtime.cpuRequest)
      : undefined;
  // With a runtime report, a value within the minimum keeps the allocated one (not the actuated one).
  if (runtime?.cpuLimit !== undefined && cpuLimit === undefined) {
    /* the allocated value stands */
  } else fill("limits", "cpu", cpuLimit);
  fill("limits", "memory", runtime?.memoryLimit !== undefined ? bytesQuantity(runtime.memoryLimit) : undefined);
  if (runtime?.cpuRequest !== undefined && cpuRequest === undefined) {
    /* the allocated value stands */
  } else fill("requests", "cpu", cpuRequest);
  fill("requests", "memory", undefined);
  return out;
}

/** Inputs of withResizeStatus. */
export interface ResizeStatusInputs {
  /** The allocated pod (the spec the agent syncs). */
  pod: Pod;
  runtime: PodStatus | undefined;
  /** The resources last applied to the container (actuated), by container name. */
  actuated: (containerName: string) => ResourceRequirements | undefined;
  conditions: readonly PodCondition[];
  previous: ApiPodStatus | undefined;
}

function withContainer(s: ApiContainerStatus, spec: Container | undefined, i: ResizeStatusInputs, init: boolean, previous: ApiContainerStatus | undefined) {
  if (!spec) return s;
  const instance = i.runtime?.containerStatuses.find((c) => c.metadata?.name === s.name && isInit(c) === init);
  if (!instance) return s;
  const resources =
    instance.state === "CONTAINER_RUNNING"
      ? runningResources(
          spec.resources,
          runtimeResources(instance),
          i.actuated(s.name),
          previous?.state?.running && previous.containerID === s.containerID ? previous.resources : undefined,
        )
      : (JSON.parse(JSON.stringify(spec.resources ?? {})) as ResourceRequirements);
  return { ...s, ...(spec.resources?.requests ? { allocatedResources: { ...spec.resources.requests } } : {}), resources };
}

/**
 * The status with the resize fields: each container's resources and allocatedResources, and the resize
 * conditions (none once the pod is terminal).
 */
export function withResizeStatus(status: ApiPodStatus, i: ResizeStatusInputs): ApiPodStatus {
  const specs = (list: Container[] | undefined) => new Map((list ?? []).map((c) => [c.name, c]));
  const app = specs(i.pod.spec?.containers);
  const init = specs(i.pod.spec?.initContainers);
  const prev = (list: ApiContainerStatus[] | undefined, name: string) => list?.find((c) => c.name === name);
  const terminal = status.phase === "Succeeded" || status.phase === "Failed";
  return {
    ...status,
    ...(status.conditions ? { conditions: [...status.conditions, ...(terminal ? [] : i.conditions)] } : {}),
    ...(status.initContainerStatuses
      ? {
          initContainerStatuses: status.initContainerStatuses.map((s) =>
            withContainer(s, init.get(s.name), i, true, prev(i.previous?.initContainerStatuses, s.name)),
          ),
        }
      : {}),
    ...(status.containerStatuses
      ? { containerStatuses: status.containerStatuses.map((s) => withContainer(s, app.get(s.name), i, false, prev(i.previous?.containerStatuses, s.name))) }
      : {}),
  };
}
