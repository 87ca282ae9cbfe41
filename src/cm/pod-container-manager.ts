// The pod's own cgroup (k/k@1.24.1 pkg/kubelet/cm/pod_container_manager_linux.go): `pod<uid>` below
// its QoS class's cgroup, made before the pod's sandbox with ResourceConfigForPod's values, so that
// the pod as a whole is held to the sum of its containers' limits and weighed by the sum of their
// requests; the runtime puts the sandbox and every container below it (the sandbox's cgroup_parent).
// When the pod is gone its cgroup is removed wherever a pod of that UID could have had one: the
// pod's class is not known any more then (the kubelet finds them by walking the QoS cgroups).
import type { Pod } from "kubernetes-types/core/v1";
import { podRef } from "../api/pod";
import { uidSegment } from "../manifest/static-pod";
import { childName, type CgroupName } from "./cgroup-name";
import type { CgroupManager } from "./cgroup-manager";
import { qosClass } from "./qos";
import type { QosContainersInfo } from "./qos-container-manager";
import { resourceConfigForPod } from "./resource-config";

/** podCgroupNamePrefix + the UID; PathEscapeError for a UID that cannot name a folder. */
export function podCgroupSuffix(uid: string): string {
  return `pod${uidSegment(uid)}`;
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

  /** Removes the cgroup of a pod of this UID in each QoS class's cgroup. */
  destroy(uid: string): void {
    const suffix = podCgroupSuffix(uid);
    for (const parent of new Set([this.qos.Guaranteed, this.qos.Burstable, this.qos.BestEffort])) this.cgroups.destroy(childName(parent, suffix));
  }
}
