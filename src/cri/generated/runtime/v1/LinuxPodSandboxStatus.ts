// Original file: /work/main/proto/api.proto

import type { Namespace as _runtime_v1_Namespace, Namespace__Output as _runtime_v1_Namespace__Output } from '../../runtime/v1/Namespace';

/**
 * LinuxSandboxStatus contains status specific to Linux sandboxes.
 */
export interface LinuxPodSandboxStatus {
  /**
   * Paths to the sandbox's namespaces.
   */
  'namespaces'?: (_runtime_v1_Namespace | null);
}

/**
 * LinuxSandboxStatus contains status specific to Linux sandboxes.
 */
export interface LinuxPodSandboxStatus__Output {
  /**
   * Paths to the sandbox's namespaces.
   */
  'namespaces': (_runtime_v1_Namespace__Output | null);
}
