// src/cm owns the node's cgroups (the kubelet's pkg/kubelet/cm): the QoS class, the kubepods / QoS /
// pod<uid> hierarchy in the cgroupfs or systemd spelling, the values each cgroup gets (pod limits,
// QoS shares, node allocatable), the OOM score per QoS, and every write to /sys/fs/cgroup (CgroupManager).
export { qosClass, type QOSClass } from "./qos";
export {
  CGROUP_DRIVERS,
  cgroupPathProblem,
  childName,
  driverName,
  expandSlice,
  parseCgroupfsName,
  parseDriverName,
  parseSystemdName,
  toCgroupfs,
  toSystemd,
  type CgroupDriver,
  type CgroupName,
} from "./cgroup-name";
export { CGROUP_MOUNT, FsCgroupManager, isUnified, removeCgroupTree, type CgroupManager } from "./cgroup-manager";
export { MemoryCgroupManager } from "./memory-cgroup-manager";
export {
  MAX_SHARES,
  MIN_SHARES,
  QUOTA_PERIOD_US,
  milliCpuToQuota,
  milliCpuToShares,
  podRequestsAndLimits,
  resourceConfigForPod,
  sharesToWeight,
  type ResourceConfig,
} from "./resource-config";
export { containerOomScoreAdj } from "./oom-score";
export { allocatableAbsolute, ENFORCEMENT_KEYS, nodeAllocatableConfig, type EnforcementKey, type NodeAllocatableOptions } from "./node-allocatable";
export { burstableShares, QosContainerManager, qosContainersInfo, type QosContainersInfo } from "./qos-container-manager";
export { PodContainerManager, podCgroupSuffix } from "./pod-container-manager";
export {
  ContainerManager,
  flatPodCgroupParent,
  flatPodCgroups,
  NODE_ALLOCATABLE_CGROUP,
  SYSTEMD_RUNNING_MARKER,
  type ContainerManagerOptions,
  type PodCgroups,
} from "./container-manager";
export { CGROUP_SETTINGS, cgroupPath, resolveCgroupRoot, resolveCgroups, type CgroupSettings, type CgroupView } from "./settings";
