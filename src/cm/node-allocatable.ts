// Node allocatable enforcement (k/k@1.24.1 pkg/kubelet/cm/node_container_manager_linux.go): the
// kubepods cgroup, parent of every pod, gets the node's capacity as its limits, or with
// --enforce-node-allocatable=pods (the default) capacity − kube-reserved − system-reserved
// (getNodeAllocatableInternalAbsolute: the hard eviction thresholds are NOT taken off here, unlike
// the Node's status.allocatable): cpu shares from the cpu, the memory limit from the memory. Pods
// together can then never take what is reserved for the system. With system-reserved and
// kube-reserved in the list, the cgroups named by --system-reserved-cgroup and --kube-reserved-cgroup
// (which must exist: the kubelet does not make them) are held to what is reserved for them.
import { type CgroupDriver, type CgroupName, parseDriverName } from "./cgroup-name";
import type { CgroupManager } from "./cgroup-manager";
import { resourceConfigForAmounts, type ResourceConfig } from "./resource-config";

/** The kubelet's NodeAllocatableEnforcementKey, SystemReservedEnforcementKey, KubeReservedEnforcementKey. */
export const ENFORCEMENT_KEYS = ["pods", "system-reserved", "kube-reserved"] as const;
export type EnforcementKey = (typeof ENFORCEMENT_KEYS)[number];

/** cpu in millicores and memory in bytes. */
export interface Amounts {
  milliCpu?: number;
  memoryBytes?: number;
}

export interface NodeAllocatableOptions {
  capacity: Required<Amounts>;
  kubeReserved: Amounts;
  systemReserved: Amounts;
  /** --enforce-node-allocatable, "none" already dropped. */
  enforce: readonly EnforcementKey[];
  /** --system-reserved-cgroup / --kube-reserved-cgroup, in the driver's form; required with their key. */
  systemReservedCgroup?: string;
  kubeReservedCgroup?: string;
}

/** capacity − kube-reserved − system-reserved, never below zero. */
export function allocatableAbsolute(o: NodeAllocatableOptions): Required<Amounts> {
  const left = (cap: number, ...reserved: (number | undefined)[]) =>
    Math.max(
      0,
      reserved.reduce<number>((n, r) => n - (r ?? 0), cap),
    );
  return {
    milliCpu: left(o.capacity.milliCpu, o.kubeReserved.milliCpu, o.systemReserved.milliCpu),
    memoryBytes: left(o.capacity.memoryBytes, o.kubeReserved.memoryBytes, o.systemReserved.memoryBytes),
  };
}

/** The kubepods cgroup's values: allocatable when "pods" is enforced, else the capacity (the default shares would starve the pods). */
export function nodeAllocatableConfig(o: NodeAllocatableOptions): ResourceConfig {
  return resourceConfigForAmounts(o.enforce.includes("pods") ? allocatableAbsolute(o) : o.capacity);
}

/**
 * enforceExistingCgroup for system-reserved and kube-reserved, as enforced: the cgroup must exist
 * ("… cgroup does not exist"), and gets what is reserved for it. Returns what was done, for the log:
 * which reservation ("system", "kube") on which cgroup.
 */
export function enforceReservedCgroups(o: NodeAllocatableOptions, cgroups: CgroupManager, driver: CgroupDriver): { reserved: string; cgroup: string }[] {
  const done: { reserved: string; cgroup: string }[] = [];
  const enforce = (key: EnforcementKey, cgroup: string | undefined, reserved: Amounts, what: string) => {
    if (!o.enforce.includes(key)) return;
    // Checked with the flags (agent-config.ts); here too, so that no caller enforces nothing silently.
    if (!cgroup) throw new Error(`${key} is enforced but no ${what} cgroup is named`);
    const name: CgroupName = parseDriverName(cgroup, driver);
    if (!cgroups.exists(name)) throw new Error(`Failed to enforce ${what} Reserved Cgroup Limits on "${cgroup}": "${cgroup}" cgroup does not exist`);
    cgroups.update(name, resourceConfigForAmounts(reserved));
    done.push({ reserved: what.toLowerCase(), cgroup });
  };
  enforce("system-reserved", o.systemReservedCgroup, o.systemReserved, "System");
  enforce("kube-reserved", o.kubeReservedCgroup, o.kubeReserved, "Kube");
  return done;
}
