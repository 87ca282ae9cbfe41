// Original file: /work/main/proto/api.proto

import type { WindowsSandboxSecurityContext as _runtime_v1_WindowsSandboxSecurityContext, WindowsSandboxSecurityContext__Output as _runtime_v1_WindowsSandboxSecurityContext__Output } from '../../runtime/v1/WindowsSandboxSecurityContext';

/**
 * WindowsPodSandboxConfig holds platform-specific configurations for Windows
 * host platforms and Windows-based containers.
 */
export interface WindowsPodSandboxConfig {
  /**
   * WindowsSandboxSecurityContext holds sandbox security attributes.
   */
  'securityContext'?: (_runtime_v1_WindowsSandboxSecurityContext | null);
}

/**
 * WindowsPodSandboxConfig holds platform-specific configurations for Windows
 * host platforms and Windows-based containers.
 */
export interface WindowsPodSandboxConfig__Output {
  /**
   * WindowsSandboxSecurityContext holds sandbox security attributes.
   */
  'securityContext': (_runtime_v1_WindowsSandboxSecurityContext__Output | null);
}
