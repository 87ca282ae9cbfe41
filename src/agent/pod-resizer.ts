// PodResizer: carries out an in-place resize of a running pod, the 1.36 kubelet's doPodResizeAction
// (step 8 of SyncPod, after the kills and the init containers, before the app containers start), and
// keeps the actuated resources (resource-state.ts) every container was created or last updated with.
//
// Memory first, then cpu. For each, when the pod's total grows the pod's cgroup is raised first (limit
// before request), then the containers are updated in the order computePodActions gave (decreases
// first) through CRI UpdateContainerResources, and when it shrinks the pod's cgroup is lowered last
// (request before limit): the pod's cgroup never holds less than its containers. A memory limit is
// not lowered below what the container uses now ("cannot decrease memory limits: …"): the resize
// fails and is tried again at the next sync. The first failure ends the attempt; its message is the
// PodResizeInProgress condition's (reason Error) and what is done stays done.
//
// Departures: the pod cgroup's current values are computed from the actuated resources (the kubelet
// reads them back from the cgroup), and a lowered pod memory limit is checked against each lowered
// container's usage, not against the pod's.
import type { Container, Pod, ResourceRequirements } from "kubernetes-types/core/v1";
import { podRef } from "../api";
import { type PodCgroups, QUOTA_PERIOD_US, type ResourceConfig, resourceConfigForPod } from "../cm";
import { bytesQuantity, milliCpuQuantity } from "../status";
import { errorMessage, type Logger } from "../util";
import type { ActuatedLookup, ContainerToUpdate, ResizeActions } from "./pod-resize";
import type { PodResourceState } from "./resource-state";
import { linuxResources, type RuntimeConfigOptions } from "./runtime-config";
import type { SyncRuntime } from "./sync-runtime";

export interface PodResizerOptions {
  runtime: Pick<SyncRuntime, "updateContainerResources">;
  /** The pods' cgroups (src/cm): the pod's own cgroup is resized (nothing in the flat layout). */
  cgroups: () => PodCgroups;
  /** The actuated record, kept across restarts (<root>/actuated_pods_state.json). */
  actuated: PodResourceState;
  config: RuntimeConfigOptions;
  /** A running container's memory usage in bytes (CRI ContainerStats), undefined when unknown. */
  memoryUsage?: (containerId: string) => Promise<number | undefined>;
  log: Logger;
}

/** A milli-CPU and byte amount back to a resource list, zeros left out. */
function resourceList(cpuMilli: number, memoryBytes: number): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (cpuMilli) out.cpu = milliCpuQuantity(cpuMilli);
  if (memoryBytes) out.memory = bytesQuantity(memoryBytes);
  return Object.keys(out).length ? out : undefined;
}

/** The container's resources with the one resource being resized at its desired values, the other at its current ones. */
function stepResources(u: ContainerToUpdate, resource: "cpu" | "memory"): ResourceRequirements {
  const cpu = resource === "cpu" ? u.desired : u.current;
  const mem = resource === "memory" ? u.desired : u.current;
  const limits = resourceList(cpu.cpuLimit, mem.memoryLimit);
  const requests = resourceList(cpu.cpuRequest, mem.memoryRequest);
  return { ...(limits ? { limits } : {}), ...(requests ? { requests } : {}) };
}

export class PodResizer {
  constructor(private readonly o: PodResizerOptions) {}

  /** Changes with the actuated record (a cached status that shows it is computed again). */
  get version(): number {
    return this.o.actuated.version;
  }

  /** What was last applied to each container of the pod. */
  actuatedOf(uid: string): ActuatedLookup {
    return (name) => this.o.actuated.container(uid, name);
  }

  /** A container is being created: its allocated resources are what it runs with (setActuatedContainerResources). */
  created(pod: Pod, container: Container): void {
    this.o.actuated.setContainer(podRef(pod).uid, container.name, container.resources ?? {});
  }

  /** The pod is gone: its record goes. */
  removePod(uid: string): void {
    this.o.actuated.remove(uid);
  }

  prune(known: ReadonlySet<string>): void {
    this.o.actuated.prune(known);
  }

  /** The pod as it now runs: each container's actuated resources where recorded. */
  private actuatedPod(pod: Pod): Pod {
    const uid = podRef(pod).uid;
    const swap = (c: Container) => {
      const r = this.o.actuated.container(uid, c.name);
      return r ? { ...c, resources: r } : c;
    };
    return { ...pod, spec: { ...pod.spec!, containers: pod.spec!.containers.map(swap), initContainers: pod.spec!.initContainers?.map(swap) } };
  }

  /** doPodResizeAction: undefined when done, else the message of what failed. */
  async resize(pod: Pod, actions: ResizeActions): Promise<string | undefined> {
    const desired = resourceConfigForPod(pod);
    const current = resourceConfigForPod(this.actuatedPod(pod));
    try {
      const problem = await this.validateMemory(actions);
      if (problem) return problem;
      if (actions.memory.length || actions.updatePodResources) {
        await this.resizeResource(
          pod,
          "memory",
          actions.memory,
          current.memoryLimitBytes ?? Infinity,
          desired.memoryLimitBytes ?? current.memoryLimitBytes ?? Infinity,
          0,
          0,
          desired,
        );
      }
      if (actions.cpu.length || actions.updatePodResources) {
        const quota = (c: ResourceConfig) => (c.cpuQuota ? c.cpuQuota : Infinity);
        await this.resizeResource(
          pod,
          "cpu",
          actions.cpu,
          quota(current),
          desired.cpuQuota ? desired.cpuQuota : quota(current),
          current.cpuShares ?? 0,
          desired.cpuShares ?? 0,
          desired,
        );
      }
    } catch (err) {
      return errorMessage(err);
    }
    return undefined;
  }

  /** validateMemoryResizeAction: no container's memory limit goes below what it uses now. */
  private async validateMemory(actions: ResizeActions): Promise<string | undefined> {
    const problems: string[] = [];
    for (const u of actions.memory) {
      const lowered = u.desired.memoryLimit !== 0 && (u.current.memoryLimit === 0 || u.desired.memoryLimit < u.current.memoryLimit);
      if (!lowered || !this.o.memoryUsage) continue;
      const usage = await this.o.memoryUsage(u.id).catch(() => undefined);
      if (usage === undefined) problems.push(`missing container ${JSON.stringify(u.name)} memory usage`);
      else if (usage >= u.desired.memoryLimit)
        problems.push(`attempting to set container ${JSON.stringify(u.name)} memory limit (${u.desired.memoryLimit}) below current usage (${usage})`);
    }
    if (!problems.length) return undefined;
    return `cannot decrease memory limits: ${problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`}`;
  }

  private async resizeResource(
    pod: Pod,
    resource: "cpu" | "memory",
    updates: ContainerToUpdate[],
    currentLimit: number,
    desiredLimit: number,
    currentRequest: number,
    desiredRequest: number,
    desired: ResourceConfig,
  ): Promise<void> {
    const setPod = (limit: boolean) => {
      let config: ResourceConfig;
      if (resource === "cpu")
        config = limit ? { cpuQuota: desired.cpuQuota, cpuPeriod: desired.cpuPeriod ?? QUOTA_PERIOD_US } : { cpuShares: desired.cpuShares };
      else if (limit) config = { memoryLimitBytes: desired.memoryLimitBytes };
      else return; // memory requests are not written to cgroups
      this.o.cgroups().resize(pod, config);
    };
    if (desiredLimit > currentLimit) setPod(true);
    if (desiredRequest > currentRequest) setPod(false);
    for (const u of updates) {
      const resources = stepResources(u, resource);
      const step = { ...u.container, resources };
      const linux = linuxResources(pod, step, this.o.config.memoryCapacityBytes, this.o.config.cluster ?? false);
      await this.o.runtime.updateContainerResources(u.id, linux);
      this.o.actuated.setContainer(podRef(pod).uid, u.name, resources);
      if (resource === "memory") {
        u.current.memoryLimit = u.desired.memoryLimit;
        u.current.memoryRequest = u.desired.memoryRequest;
      } else {
        u.current.cpuLimit = u.desired.cpuLimit;
        u.current.cpuRequest = u.desired.cpuRequest;
      }
      this.o.log.info("container resized in place", { pod: `${podRef(pod).namespace}/${podRef(pod).name}`, container: u.name, resource, resources });
    }
    if (desiredRequest < currentRequest) setPod(false);
    if (desiredLimit < currentLimit) setPod(true);
  }
}
