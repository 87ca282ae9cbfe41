// Original file: /work/main/proto/api.proto

import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState';

/**
 * ContainerStateValue is the wrapper of ContainerState.
 */
export interface ContainerStateValue {
  /**
   * State of the container.
   */
  'state'?: (_runtime_v1_ContainerState);
}

/**
 * ContainerStateValue is the wrapper of ContainerState.
 */
export interface ContainerStateValue__Output {
  /**
   * State of the container.
   */
  'state': (_runtime_v1_ContainerState__Output);
}
