// Original file: /work/main/proto/api.proto

import type { LinuxSandboxSecurityContext as _runtime_v1_LinuxSandboxSecurityContext, LinuxSandboxSecurityContext__Output as _runtime_v1_LinuxSandboxSecurityContext__Output } from '../../runtime/v1/LinuxSandboxSecurityContext';
import type { LinuxContainerResources as _runtime_v1_LinuxContainerResources, LinuxContainerResources__Output as _runtime_v1_LinuxContainerResources__Output } from '../../runtime/v1/LinuxContainerResources';

/**
 * LinuxPodSandboxConfig holds platform-specific configurations for Linux
 * host platforms and Linux-based containers.
 */
export interface LinuxPodSandboxConfig {
  /**
   * Parent cgroup of the PodSandbox.
   * The cgroupfs style syntax will be used, but the container runtime can
   * convert it to systemd semantics if needed.
   */
  'cgroupParent'?: (string);
  /**
   * LinuxSandboxSecurityContext holds sandbox security attributes.
   */
  'securityContext'?: (_runtime_v1_LinuxSandboxSecurityContext | null);
  /**
   * Sysctls holds linux sysctls config for the sandbox.
   */
  'sysctls'?: ({[key: string]: string});
  /**
   * Optional overhead represents the overheads associated with this sandbox
   */
  'overhead'?: (_runtime_v1_LinuxContainerResources | null);
  /**
   * Optional resources represents the sum of container resources for this sandbox
   */
  'resources'?: (_runtime_v1_LinuxContainerResources | null);
}

/**
 * LinuxPodSandboxConfig holds platform-specific configurations for Linux
 * host platforms and Linux-based containers.
 */
export interface LinuxPodSandboxConfig__Output {
  /**
   * Parent cgroup of the PodSandbox.
   * The cgroupfs style syntax will be used, but the container runtime can
   * convert it to systemd semantics if needed.
   */
  'cgroupParent': (string);
  /**
   * LinuxSandboxSecurityContext holds sandbox security attributes.
   */
  'securityContext': (_runtime_v1_LinuxSandboxSecurityContext__Output | null);
  /**
   * Sysctls holds linux sysctls config for the sandbox.
   */
  'sysctls': ({[key: string]: string});
  /**
   * Optional overhead represents the overheads associated with this sandbox
   */
  'overhead': (_runtime_v1_LinuxContainerResources__Output | null);
  /**
   * Optional resources represents the sum of container resources for this sandbox
   */
  'resources': (_runtime_v1_LinuxContainerResources__Output | null);
}
