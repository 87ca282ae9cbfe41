// Original file: /work/main/proto/api.proto

import type { LinuxContainerResources as _runtime_v1_LinuxContainerResources, LinuxContainerResources__Output as _runtime_v1_LinuxContainerResources__Output } from '../../runtime/v1/LinuxContainerResources';
import type { LinuxContainerSecurityContext as _runtime_v1_LinuxContainerSecurityContext, LinuxContainerSecurityContext__Output as _runtime_v1_LinuxContainerSecurityContext__Output } from '../../runtime/v1/LinuxContainerSecurityContext';

/**
 * LinuxContainerConfig contains platform-specific configuration for
 * Linux-based containers.
 */
export interface LinuxContainerConfig {
  /**
   * Resources specification for the container.
   */
  'resources'?: (_runtime_v1_LinuxContainerResources | null);
  /**
   * LinuxContainerSecurityContext configuration for the container.
   */
  'securityContext'?: (_runtime_v1_LinuxContainerSecurityContext | null);
}

/**
 * LinuxContainerConfig contains platform-specific configuration for
 * Linux-based containers.
 */
export interface LinuxContainerConfig__Output {
  /**
   * Resources specification for the container.
   */
  'resources': (_runtime_v1_LinuxContainerResources__Output | null);
  /**
   * LinuxContainerSecurityContext configuration for the container.
   */
  'securityContext': (_runtime_v1_LinuxContainerSecurityContext__Output | null);
}
