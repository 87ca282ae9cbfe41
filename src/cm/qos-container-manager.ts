// The QoS cgroups (k/k@1.24.1 pkg/kubelet/cm/qos_container_manager_linux.go): below the node
// allocatable cgroup (kubepods) the kubelet keeps `burstable` and `besteffort`; Guaranteed pods sit
// directly in kubepods. At start both are made (or updated, so a restarted agent puts the right
// values back); then, whenever a pod comes or goes (the kubelet: before a new pod's cgroup is made,
// and every minute; the agent: also at each housekeeping when they changed, so that pods adopted
// after a restart count at once), the cpu shares are set from the active pods:
//   besteffort  2 shares, always: it gets cpu only when nobody else wants it
//   burstable   the shares of the summed cpu requests of the Burstable pods (2 with none)
// Memory limits on the QoS cgroups come only with the alpha QOSReserved gate, which nodeagent does
// not have: none are set.
import type { Pod } from "kubernetes-types/core/v1";
import { childName, type CgroupName } from "./cgroup-name";
import type { CgroupManager } from "./cgroup-manager";
import { qosClass, type QOSClass } from "./qos";
import { MIN_SHARES, milliCpuToShares, podRequestsAndLimits, type ResourceConfig } from "./resource-config";

export type QosContainersInfo = Readonly<Record<QOSClass, CgroupName>>;

/** Where each class's pods go below the node allocatable cgroup (kubepods). */
export function qosContainersInfo(nodeAllocatable: CgroupName): QosContainersInfo {
  return { Guaranteed: nodeAllocatable, Burstable: childName(nodeAllocatable, "burstable"), BestEffort: childName(nodeAllocatable, "besteffort") };
}

/** The burstable cgroup's shares: the Burstable pods' cpu requests summed (setCPUCgroupConfig). */
export function burstableShares(pods: readonly Pod[]): number {
  let milliCpu = 0;
  for (const pod of pods) {
    if (qosClass(pod) !== "Burstable") continue;
    milliCpu += podRequestsAndLimits(pod).requests.get("cpu") ?? 0;
  }
  return milliCpuToShares(milliCpu);
}

export class QosContainerManager {
  readonly info: QosContainersInfo;

  constructor(
    private readonly cgroups: CgroupManager,
    nodeAllocatable: CgroupName,
    /** The pods the node runs (the kubelet's activePods): what the burstable shares are summed from. */
    private readonly activePods: () => Pod[],
  ) {
    this.info = qosContainersInfo(nodeAllocatable);
  }

  /** Makes (or updates) burstable and besteffort with their shares. */
  start(): void {
    this.update();
  }

  /**
   * UpdateCgroups: besteffort back to 2 shares, burstable to the Burstable pods' requests. A QoS
   * cgroup that someone removed is made again (the kubelet would only log the failed update until
   * its next restart). With onlyIfChanged (the periodic refresh) nothing is written while the shares
   * are what was last written and both cgroups are there.
   */
  update(onlyIfChanged = false): void {
    const shares = burstableShares(this.activePods());
    if (onlyIfChanged && shares === this.written && this.cgroups.exists(this.info.Burstable) && this.cgroups.exists(this.info.BestEffort)) return;
    const set = (name: CgroupName, config: ResourceConfig) =>
      this.cgroups.exists(name) ? this.cgroups.update(name, config) : this.cgroups.create(name, config);
    set(this.info.BestEffort, { cpuShares: MIN_SHARES });
    set(this.info.Burstable, { cpuShares: shares });
    this.written = shares;
  }

  /** The burstable shares last written. */
  private written: number | undefined;
}
