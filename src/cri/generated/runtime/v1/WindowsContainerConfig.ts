// Original file: /work/main/proto/api.proto

import type { WindowsContainerResources as _runtime_v1_WindowsContainerResources, WindowsContainerResources__Output as _runtime_v1_WindowsContainerResources__Output } from '../../runtime/v1/WindowsContainerResources';
import type { WindowsContainerSecurityContext as _runtime_v1_WindowsContainerSecurityContext, WindowsContainerSecurityContext__Output as _runtime_v1_WindowsContainerSecurityContext__Output } from '../../runtime/v1/WindowsContainerSecurityContext';

/**
 * WindowsContainerConfig contains platform-specific configuration for
 * Windows-based containers.
 */
export interface WindowsContainerConfig {
  /**
   * Resources specification for the container.
   */
  'resources'?: (_runtime_v1_WindowsContainerResources | null);
  /**
   * WindowsContainerSecurityContext configuration for the container.
   */
  'securityContext'?: (_runtime_v1_WindowsContainerSecurityContext | null);
}

/**
 * WindowsContainerConfig contains platform-specific configuration for
 * Windows-based containers.
 */
export interface WindowsContainerConfig__Output {
  /**
   * Resources specification for the container.
   */
  'resources': (_runtime_v1_WindowsContainerResources__Output | null);
  /**
   * WindowsContainerSecurityContext configuration for the container.
   */
  'securityContext': (_runtime_v1_WindowsContainerSecurityContext__Output | null);
}
