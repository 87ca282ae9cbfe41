// Original file: /work/main/proto/api.proto

import type { WindowsCpuUsage as _runtime_v1_WindowsCpuUsage, WindowsCpuUsage__Output as _runtime_v1_WindowsCpuUsage__Output } from '../../runtime/v1/WindowsCpuUsage';
import type { WindowsMemoryUsage as _runtime_v1_WindowsMemoryUsage, WindowsMemoryUsage__Output as _runtime_v1_WindowsMemoryUsage__Output } from '../../runtime/v1/WindowsMemoryUsage';
import type { WindowsNetworkUsage as _runtime_v1_WindowsNetworkUsage, WindowsNetworkUsage__Output as _runtime_v1_WindowsNetworkUsage__Output } from '../../runtime/v1/WindowsNetworkUsage';
import type { WindowsProcessUsage as _runtime_v1_WindowsProcessUsage, WindowsProcessUsage__Output as _runtime_v1_WindowsProcessUsage__Output } from '../../runtime/v1/WindowsProcessUsage';
import type { WindowsContainerStats as _runtime_v1_WindowsContainerStats, WindowsContainerStats__Output as _runtime_v1_WindowsContainerStats__Output } from '../../runtime/v1/WindowsContainerStats';

/**
 * WindowsPodSandboxStats provides the resource usage statistics for a pod sandbox on windows
 */
export interface WindowsPodSandboxStats {
  /**
   * CPU usage gathered for the pod sandbox.
   */
  'cpu'?: (_runtime_v1_WindowsCpuUsage | null);
  /**
   * Memory usage gathered for the pod sandbox.
   */
  'memory'?: (_runtime_v1_WindowsMemoryUsage | null);
  /**
   * Network usage gathered for the pod sandbox
   */
  'network'?: (_runtime_v1_WindowsNetworkUsage | null);
  /**
   * Stats pertaining to processes in the pod sandbox.
   */
  'process'?: (_runtime_v1_WindowsProcessUsage | null);
  /**
   * Stats of containers in the measured pod sandbox.
   */
  'containers'?: (_runtime_v1_WindowsContainerStats)[];
}

/**
 * WindowsPodSandboxStats provides the resource usage statistics for a pod sandbox on windows
 */
export interface WindowsPodSandboxStats__Output {
  /**
   * CPU usage gathered for the pod sandbox.
   */
  'cpu': (_runtime_v1_WindowsCpuUsage__Output | null);
  /**
   * Memory usage gathered for the pod sandbox.
   */
  'memory': (_runtime_v1_WindowsMemoryUsage__Output | null);
  /**
   * Network usage gathered for the pod sandbox
   */
  'network': (_runtime_v1_WindowsNetworkUsage__Output | null);
  /**
   * Stats pertaining to processes in the pod sandbox.
   */
  'process': (_runtime_v1_WindowsProcessUsage__Output | null);
  /**
   * Stats of containers in the measured pod sandbox.
   */
  'containers': (_runtime_v1_WindowsContainerStats__Output)[];
}
