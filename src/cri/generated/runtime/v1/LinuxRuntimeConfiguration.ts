// Original file: /work/main/proto/api.proto

import type { CgroupDriver as _runtime_v1_CgroupDriver, CgroupDriver__Output as _runtime_v1_CgroupDriver__Output } from '../../runtime/v1/CgroupDriver';

export interface LinuxRuntimeConfiguration {
  /**
   * Cgroup driver to use
   * Note: this field should not change for the lifecycle of the Kubelet,
   * or while there are running containers.
   * The Kubelet will not re-request this after startup, and will construct the cgroup
   * hierarchy assuming it is static.
   * If the runtime wishes to change this value, it must be accompanied by removal of
   * all pods, and a restart of the Kubelet. The easiest way to do this is with a full node reboot.
   */
  'cgroupDriver'?: (_runtime_v1_CgroupDriver);
}

export interface LinuxRuntimeConfiguration__Output {
  /**
   * Cgroup driver to use
   * Note: this field should not change for the lifecycle of the Kubelet,
   * or while there are running containers.
   * The Kubelet will not re-request this after startup, and will construct the cgroup
   * hierarchy assuming it is static.
   * If the runtime wishes to change this value, it must be accompanied by removal of
   * all pods, and a restart of the Kubelet. The easiest way to do this is with a full node reboot.
   */
  'cgroupDriver': (_runtime_v1_CgroupDriver__Output);
}
