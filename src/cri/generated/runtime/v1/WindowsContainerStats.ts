// Original file: /work/main/proto/api.proto

import type { ContainerAttributes as _runtime_v1_ContainerAttributes, ContainerAttributes__Output as _runtime_v1_ContainerAttributes__Output } from '../../runtime/v1/ContainerAttributes';
import type { WindowsCpuUsage as _runtime_v1_WindowsCpuUsage, WindowsCpuUsage__Output as _runtime_v1_WindowsCpuUsage__Output } from '../../runtime/v1/WindowsCpuUsage';
import type { WindowsMemoryUsage as _runtime_v1_WindowsMemoryUsage, WindowsMemoryUsage__Output as _runtime_v1_WindowsMemoryUsage__Output } from '../../runtime/v1/WindowsMemoryUsage';
import type { WindowsFilesystemUsage as _runtime_v1_WindowsFilesystemUsage, WindowsFilesystemUsage__Output as _runtime_v1_WindowsFilesystemUsage__Output } from '../../runtime/v1/WindowsFilesystemUsage';

/**
 * WindowsContainerStats provides the resource usage statistics for a container specific for Windows
 */
export interface WindowsContainerStats {
  /**
   * Information of the container.
   */
  'attributes'?: (_runtime_v1_ContainerAttributes | null);
  /**
   * CPU usage gathered from the container.
   */
  'cpu'?: (_runtime_v1_WindowsCpuUsage | null);
  /**
   * Memory usage gathered from the container.
   */
  'memory'?: (_runtime_v1_WindowsMemoryUsage | null);
  /**
   * Usage of the writable layer.
   */
  'writableLayer'?: (_runtime_v1_WindowsFilesystemUsage | null);
}

/**
 * WindowsContainerStats provides the resource usage statistics for a container specific for Windows
 */
export interface WindowsContainerStats__Output {
  /**
   * Information of the container.
   */
  'attributes': (_runtime_v1_ContainerAttributes__Output | null);
  /**
   * CPU usage gathered from the container.
   */
  'cpu': (_runtime_v1_WindowsCpuUsage__Output | null);
  /**
   * Memory usage gathered from the container.
   */
  'memory': (_runtime_v1_WindowsMemoryUsage__Output | null);
  /**
   * Usage of the writable layer.
   */
  'writableLayer': (_runtime_v1_WindowsFilesystemUsage__Output | null);
}
