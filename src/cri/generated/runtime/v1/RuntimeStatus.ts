// Original file: /work/main/proto/api.proto

import type { RuntimeCondition as _runtime_v1_RuntimeCondition, RuntimeCondition__Output as _runtime_v1_RuntimeCondition__Output } from '../../runtime/v1/RuntimeCondition';

/**
 * RuntimeStatus is information about the current status of the runtime.
 */
export interface RuntimeStatus {
  /**
   * List of current observed runtime conditions.
   */
  'conditions'?: (_runtime_v1_RuntimeCondition)[];
}

/**
 * RuntimeStatus is information about the current status of the runtime.
 */
export interface RuntimeStatus__Output {
  /**
   * List of current observed runtime conditions.
   */
  'conditions': (_runtime_v1_RuntimeCondition__Output)[];
}
