// Original file: /work/main/proto/api.proto

import type { LinuxContainerResources as _runtime_v1_LinuxContainerResources, LinuxContainerResources__Output as _runtime_v1_LinuxContainerResources__Output } from '../../runtime/v1/LinuxContainerResources';
import type { WindowsContainerResources as _runtime_v1_WindowsContainerResources, WindowsContainerResources__Output as _runtime_v1_WindowsContainerResources__Output } from '../../runtime/v1/WindowsContainerResources';

export interface UpdateContainerResourcesRequest {
  /**
   * ID of the container to update.
   */
  'containerId'?: (string);
  /**
   * Resource configuration specific to Linux containers.
   */
  'linux'?: (_runtime_v1_LinuxContainerResources | null);
  /**
   * Resource configuration specific to Windows containers.
   */
  'windows'?: (_runtime_v1_WindowsContainerResources | null);
  /**
   * Unstructured key-value map holding arbitrary additional information for
   * container resources updating. This can be used for specifying experimental
   * resources to update or other options to use when updating the container.
   */
  'annotations'?: ({[key: string]: string});
}

export interface UpdateContainerResourcesRequest__Output {
  /**
   * ID of the container to update.
   */
  'containerId': (string);
  /**
   * Resource configuration specific to Linux containers.
   */
  'linux': (_runtime_v1_LinuxContainerResources__Output | null);
  /**
   * Resource configuration specific to Windows containers.
   */
  'windows': (_runtime_v1_WindowsContainerResources__Output | null);
  /**
   * Unstructured key-value map holding arbitrary additional information for
   * container resources updating. This can be used for specifying experimental
   * resources to update or other options to use when updating the container.
   */
  'annotations': ({[key: string]: string});
}
