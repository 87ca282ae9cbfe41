// The resize part of computePodActions (the 1.36 kubelet's computePodResizeAction): for each running
// resizable container (app containers and sidecars), what the node has allocated to it (the spec the
// agent syncs, src/agent/allocation-manager.ts) against what was last applied to it (the actuated
// resources, resource-state.ts). Each of cpu limit, cpu request, memory limit and memory request that
// differs is resized as its resizePolicy says: NotRequired (the default) updates the running container
// in place (CRI UpdateContainerResources, then or before the pod's cgroup: pod-resizer.ts); one resource
// whose policy is RestartContainer restarts the container instead, with the new values, its pod cgroup
// resized first. Updates are ordered per resource, decreases before increases, so that the pod's
// cgroup never holds less than its containers together.
import type { Container, ResourceRequirements } from "kubernetes-types/core/v1";
import { parseQuantity } from "../api";
import type { ContainerStatus } from "../cri";
import type { PodStatus } from "../pleg";
import { isInit } from "../status";
import type { Pod } from "kubernetes-types/core/v1";

/** The four resizable values: bytes for memory, milli-CPU for cpu (the kubelet's resourceRequirements). */
export interface ResourceAmounts {
  memoryLimit: number;
  memoryRequest: number;
  cpuLimit: number;
  cpuRequest: number;
}

export interface ContainerToUpdate {
  name: string;
  /** The running instance's CRI ID. */
  id: string;
  container: Container;
  desired: ResourceAmounts;
  /** What the container has now; updated as the resize goes (the kubelet's currentContainerResources). */
  current: ResourceAmounts;
}

export interface ResizeActions {
  /** Containers to update in place, per resource, decreases first. */
  memory: ContainerToUpdate[];
  cpu: ContainerToUpdate[];
  /** A container is restarted for a resize: the pod's cgroup takes the new values first. */
  updatePodResources: boolean;
}

export function noResizeActions(): ResizeActions {
  return { memory: [], cpu: [], updatePodResources: false };
}

/** What was last applied to a container of the pod (the actuated record), by name. */
export type ActuatedLookup = (containerName: string) => ResourceRequirements | undefined;

const quantity = (q: string | number | undefined, milli: boolean) => (q === undefined ? 0 : milli ? parseQuantity(q).milli() : parseQuantity(q).value());

export function resourceAmounts(r: ResourceRequirements | undefined): ResourceAmounts {
  return {
    memoryLimit: quantity(r?.limits?.memory, false),
    memoryRequest: quantity(r?.requests?.memory, false),
    cpuLimit: quantity(r?.limits?.cpu, true),
    cpuRequest: quantity(r?.requests?.cpu, true),
  };
}

/** Whether the actuated values differ from the allocated ones (isPodResizeInProgress, per container). */
export function resizePending(allocated: ResourceRequirements | undefined, actuated: ResourceRequirements | undefined): boolean {
  const a = resourceAmounts(allocated);
  const b = resourceAmounts(actuated);
  return a.cpuLimit !== b.cpuLimit || a.cpuRequest !== b.cpuRequest || a.memoryLimit !== b.memoryLimit || a.memoryRequest !== b.memoryRequest;
}

function restartPolicyOf(c: Container, resource: "cpu" | "memory"): boolean {
  return (c.resizePolicy ?? []).find((p) => p.resourceName === resource)?.restartPolicy === "RestartContainer";
}

/** Adds the update to the resource's list: a decrease before every other update, an increase after. */
function markForUpdate(list: ContainerToUpdate[], u: ContainerToUpdate, desired: number, current: number): void {
  if (desired > current) list.push(u);
  else if (desired < current) list.unshift(u);
}

/**
 * computePodResizeAction for one running instance: adds what the resize needs to `actions` and says
 * whether the instance is kept (false: its resizePolicy asks for a restart, which the caller kills and
 * starts again). Nothing for a container whose actuated values equal its allocated ones, or that is
 * not running (it starts with its allocated values).
 */
export function computeContainerResize(container: Container, instance: ContainerStatus, actuated: ActuatedLookup, actions: ResizeActions): boolean {
  if (instance.state !== "CONTAINER_RUNNING") return true;
  const desired = resourceAmounts(container.resources);
  const current = resourceAmounts(actuated(container.name));
  const memLim = desired.memoryLimit !== current.memoryLimit;
  const memReq = desired.memoryRequest !== current.memoryRequest;
  const cpuLim = desired.cpuLimit !== current.cpuLimit;
  const cpuReq = desired.cpuRequest !== current.cpuRequest;
  if (!memLim && !memReq && !cpuLim && !cpuReq) return true;
  if (((memLim || memReq) && restartPolicyOf(container, "memory")) || ((cpuLim || cpuReq) && restartPolicyOf(container, "cpu"))) {
    actions.updatePodResources = true;
    return false;
  }
  const u: ContainerToUpdate = { name: container.name, id: instance.id, container, desired, current };
  if (memLim) markForUpdate(actions.memory, u, desired.memoryLimit, current.memoryLimit);
  else if (memReq) markForUpdate(actions.memory, u, desired.memoryRequest, current.memoryRequest);
  if (cpuLim) markForUpdate(actions.cpu, u, desired.cpuLimit, current.cpuLimit);
  else if (cpuReq) markForUpdate(actions.cpu, u, desired.cpuRequest, current.cpuRequest);
  return true;
}

/** The kill reason of a container restarted for its resize (the kubelet's message). */
export function resizeRestartReason(name: string): string {
  return `Container ${name} resize requires restart`;
}

/** Whether the actions resize anything. */
export function hasResize(a: ResizeActions): boolean {
  return a.updatePodResources || a.memory.length > 0 || a.cpu.length > 0;
}

/**
 * IsPodResizeInProgress: a running resizable container (app container or sidecar) whose actuated
 * resources differ from its allocated ones. Containers that are not running start with their allocated values.
 */
export function podResizeInProgress(pod: Pod, status: PodStatus | undefined, actuated: ActuatedLookup): boolean {
  const check = (c: Container, init: boolean) => {
    // The newest instance (the status is newest first).
    const s = status?.containerStatuses.find((x) => x.metadata?.name === c.name && isInit(x) === init);
    return s?.state === "CONTAINER_RUNNING" && resizePending(c.resources, actuated(c.name));
  };
  return (
    (pod.spec?.initContainers ?? []).some((c) => c.restartPolicy === "Always" && check(c, true)) || (pod.spec?.containers ?? []).some((c) => check(c, false))
  );
}
