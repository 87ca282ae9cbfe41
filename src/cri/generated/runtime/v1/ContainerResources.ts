// Original file: /work/main/proto/api.proto

import type { LinuxContainerResources as _runtime_v1_LinuxContainerResources, LinuxContainerResources__Output as _runtime_v1_LinuxContainerResources__Output } from '../../runtime/v1/LinuxContainerResources';
import type { WindowsContainerResources as _runtime_v1_WindowsContainerResources, WindowsContainerResources__Output as _runtime_v1_WindowsContainerResources__Output } from '../../runtime/v1/WindowsContainerResources';

/**
 * ContainerResources holds resource limits configuration for a container.
 */
export interface ContainerResources {
  /**
   * Resource limits configuration specific to Linux container.
   */
  'linux'?: (_runtime_v1_LinuxContainerResources | null);
  /**
   * Resource limits configuration specific to Windows container.
   */
  'windows'?: (_runtime_v1_WindowsContainerResources | null);
}

/**
 * ContainerResources holds resource limits configuration for a container.
 */
export interface ContainerResources__Output {
  /**
   * Resource limits configuration specific to Linux container.
   */
  'linux': (_runtime_v1_LinuxContainerResources__Output | null);
  /**
   * Resource limits configuration specific to Windows container.
   */
  'windows': (_runtime_v1_WindowsContainerResources__Output | null);
}
