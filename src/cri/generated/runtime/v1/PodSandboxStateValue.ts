// Original file: /work/main/proto/api.proto

import type { PodSandboxState as _runtime_v1_PodSandboxState, PodSandboxState__Output as _runtime_v1_PodSandboxState__Output } from '../../runtime/v1/PodSandboxState';

/**
 * PodSandboxStateValue is the wrapper of PodSandboxState.
 */
export interface PodSandboxStateValue {
  /**
   * State of the sandbox.
   */
  'state'?: (_runtime_v1_PodSandboxState);
}

/**
 * PodSandboxStateValue is the wrapper of PodSandboxState.
 */
export interface PodSandboxStateValue__Output {
  /**
   * State of the sandbox.
   */
  'state': (_runtime_v1_PodSandboxState__Output);
}
