// Original file: /work/main/proto/api.proto

import type { PodSandboxStateValue as _runtime_v1_PodSandboxStateValue, PodSandboxStateValue__Output as _runtime_v1_PodSandboxStateValue__Output } from '../../runtime/v1/PodSandboxStateValue';

/**
 * PodSandboxFilter is used to filter a list of PodSandboxes.
 * All those fields are combined with 'AND'
 */
export interface PodSandboxFilter {
  /**
   * ID of the sandbox.
   */
  'id'?: (string);
  /**
   * State of the sandbox.
   */
  'state'?: (_runtime_v1_PodSandboxStateValue | null);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector'?: ({[key: string]: string});
}

/**
 * PodSandboxFilter is used to filter a list of PodSandboxes.
 * All those fields are combined with 'AND'
 */
export interface PodSandboxFilter__Output {
  /**
   * ID of the sandbox.
   */
  'id': (string);
  /**
   * State of the sandbox.
   */
  'state': (_runtime_v1_PodSandboxStateValue__Output | null);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector': ({[key: string]: string});
}
