// Original file: /work/main/proto/api.proto

import type { WindowsNamespaceOption as _runtime_v1_WindowsNamespaceOption, WindowsNamespaceOption__Output as _runtime_v1_WindowsNamespaceOption__Output } from '../../runtime/v1/WindowsNamespaceOption';

/**
 * WindowsSandboxSecurityContext holds platform-specific configurations that will be
 * applied to a sandbox.
 * These settings will only apply to the sandbox container.
 */
export interface WindowsSandboxSecurityContext {
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image and be resolved there by the runtime;
   * otherwise, the runtime MUST return error.
   */
  'runAsUsername'?: (string);
  /**
   * The contents of the GMSA credential spec to use to run this container.
   */
  'credentialSpec'?: (string);
  /**
   * Indicates whether the container requested to run as a HostProcess container.
   */
  'hostProcess'?: (boolean);
  /**
   * Configuration for the sandbox's namespaces
   */
  'namespaceOptions'?: (_runtime_v1_WindowsNamespaceOption | null);
}

/**
 * WindowsSandboxSecurityContext holds platform-specific configurations that will be
 * applied to a sandbox.
 * These settings will only apply to the sandbox container.
 */
export interface WindowsSandboxSecurityContext__Output {
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image and be resolved there by the runtime;
   * otherwise, the runtime MUST return error.
   */
  'runAsUsername': (string);
  /**
   * The contents of the GMSA credential spec to use to run this container.
   */
  'credentialSpec': (string);
  /**
   * Indicates whether the container requested to run as a HostProcess container.
   */
  'hostProcess': (boolean);
  /**
   * Configuration for the sandbox's namespaces
   */
  'namespaceOptions': (_runtime_v1_WindowsNamespaceOption__Output | null);
}
