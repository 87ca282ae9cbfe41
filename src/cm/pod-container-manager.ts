// The pod's own cgroup (k/k@1.24.1 pkg/kubelet/cm/pod_container_manager_linux.go): `pod<uid>` below
// its QoS class's cgroup, made before the pod's sandbox with ResourceConfigForPod's values, so that
// the pod as a whole is held to the sum of its containers' limits and weighed by the sum of their
// requests; the runtime puts the sandbox and every container below it (the sandbox's cgroup_parent).
// When the pod is gone its cgroup is removed wherever a pod of that UID could have had one: the
// pod's class is not known any more then (the kubelet finds them by walking the QoS cgroups).
import type { Pod } from "kubernetes-types/core/v1";
import { podRef, uidSegment } from "../api";
import { childName, parseSystemdName, type CgroupName } from "./cgroup-name";
import type { CgroupManager } from "./cgroup-manager";
import { qosClass } from "./qos";
import type { QosContainersInfo } from "./qos-container-manager";
import { resourceConfigForPod, type ResourceConfig } from "./resource-config";

/** podCgroupNamePrefix. */
const POD_CGROUP_PREFIX = "pod";

/** podCgroupNamePrefix + the UID; PathEscapeError for a UID that cannot name a folder. */
export function podCgroupSuffix(uid: string): string {
  return `${POD_CGROUP_PREFIX}${uidSegment(uid)}`;
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

export class PodContainerManager {
  constructor(
    private readonly cgroups: CgroupManager,
    private readonly qos: QosContainersInfo,
  ) {}

  /** GetPodContainerName: the pod's cgroup below its QoS class's. */
  name(pod: Pod): CgroupName {
    return childName(this.qos[qosClass(pod)], podCgroupSuffix(podRef(pod).uid));
  }

  exists(pod: Pod): boolean {
    return this.cgroups.exists(this.name(pod));
  }

  /** EnsureExists: made with the pod's values when missing; one that exists is left as it is (as the kubelet 1.24). */
  ensureExists(pod: Pod): void {
    const name = this.name(pod);
    if (!this.cgroups.exists(name)) this.cgroups.create(name, resourceConfigForPod(pod));
  }

  /** SetPodCgroupConfig: the values given written to the pod's cgroup, which must exist. */
  update(pod: Pod, config: ResourceConfig): void {
    this.cgroups.update(this.name(pod), config);
  }

  /**
   * The pod cgroups in the QoS classes' cgroups whose UID is not one of `known` (the kubelet's
   * GetAllPodsFromCgroups, less the pods it knows): a pod that went while the agent was down, or
   * whose removal was cut short.
   */
  orphans(known: ReadonlySet<string>): CgroupName[] {
    const out: CgroupName[] = [];
    for (const parent of new Set([this.qos.Guaranteed, this.qos.Burstable, this.qos.BestEffort])) {
      const expected = new Set<string>();
      for (const uid of known) {
        try {
          expected.add(lastSegment(this.cgroups.name(childName(parent, podCgroupSuffix(uid)))));
        } catch {
          /* a UID that names no folder has no cgroup */
        }
      }
      for (const folder of this.cgroups.children(parent)) {
        if (expected.has(folder)) continue;
        // Back to a name: the folder below the parent (cgroupfs), or the slice's own components,
        // which its spelling keeps whole (systemd: "-" only between components).
        const name = this.cgroups.driver === "systemd" ? parseSystemdName(folder) : childName(parent, folder);
        if (name.length === parent.length + 1 && name[name.length - 1]!.startsWith(POD_CGROUP_PREFIX)) out.push(name);
      }
    }
    return out;
  }

  /** Removes the cgroup of a pod of this UID in each QoS class's cgroup; the first error (CgroupBusyError) after trying every one. */
  destroy(uid: string): void {
    const suffix = podCgroupSuffix(uid);
    let first: unknown;
    for (const parent of new Set([this.qos.Guaranteed, this.qos.Burstable, this.qos.BestEffort])) {
      try {
        this.cgroups.destroy(childName(parent, suffix));
      } catch (err) {
        first ??= err;
      }
    }
    if (first !== undefined) throw first;
  }
}
