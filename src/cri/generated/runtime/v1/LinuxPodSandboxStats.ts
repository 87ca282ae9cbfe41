// Original file: /work/main/proto/api.proto

import type { CpuUsage as _runtime_v1_CpuUsage, CpuUsage__Output as _runtime_v1_CpuUsage__Output } from '../../runtime/v1/CpuUsage';
import type { MemoryUsage as _runtime_v1_MemoryUsage, MemoryUsage__Output as _runtime_v1_MemoryUsage__Output } from '../../runtime/v1/MemoryUsage';
import type { NetworkUsage as _runtime_v1_NetworkUsage, NetworkUsage__Output as _runtime_v1_NetworkUsage__Output } from '../../runtime/v1/NetworkUsage';
import type { ProcessUsage as _runtime_v1_ProcessUsage, ProcessUsage__Output as _runtime_v1_ProcessUsage__Output } from '../../runtime/v1/ProcessUsage';
import type { ContainerStats as _runtime_v1_ContainerStats, ContainerStats__Output as _runtime_v1_ContainerStats__Output } from '../../runtime/v1/ContainerStats';

/**
 * LinuxPodSandboxStats provides the resource usage statistics for a pod sandbox on linux.
 */
export interface LinuxPodSandboxStats {
  /**
   * CPU usage gathered for the pod sandbox.
   */
  'cpu'?: (_runtime_v1_CpuUsage | null);
  /**
   * Memory usage gathered for the pod sandbox.
   */
  'memory'?: (_runtime_v1_MemoryUsage | null);
  /**
   * Network usage gathered for the pod sandbox
   */
  'network'?: (_runtime_v1_NetworkUsage | null);
  /**
   * Stats pertaining to processes in the pod sandbox.
   */
  'process'?: (_runtime_v1_ProcessUsage | null);
  /**
   * Stats of containers in the measured pod sandbox.
   */
  'containers'?: (_runtime_v1_ContainerStats)[];
}

/**
 * LinuxPodSandboxStats provides the resource usage statistics for a pod sandbox on linux.
 */
export interface LinuxPodSandboxStats__Output {
  /**
   * CPU usage gathered for the pod sandbox.
   */
  'cpu': (_runtime_v1_CpuUsage__Output | null);
  /**
   * Memory usage gathered for the pod sandbox.
   */
  'memory': (_runtime_v1_MemoryUsage__Output | null);
  /**
   * Network usage gathered for the pod sandbox
   */
  'network': (_runtime_v1_NetworkUsage__Output | null);
  /**
   * Stats pertaining to processes in the pod sandbox.
   */
  'process': (_runtime_v1_ProcessUsage__Output | null);
  /**
   * Stats of containers in the measured pod sandbox.
   */
  'containers': (_runtime_v1_ContainerStats__Output)[];
}
