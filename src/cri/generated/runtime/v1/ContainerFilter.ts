// Original file: /work/main/proto/api.proto

import type { ContainerStateValue as _runtime_v1_ContainerStateValue, ContainerStateValue__Output as _runtime_v1_ContainerStateValue__Output } from '../../runtime/v1/ContainerStateValue';

/**
 * ContainerFilter is used to filter containers.
 * All those fields are combined with 'AND'
 */
export interface ContainerFilter {
  /**
   * ID of the container.
   */
  'id'?: (string);
  /**
   * State of the container.
   */
  'state'?: (_runtime_v1_ContainerStateValue | null);
  /**
   * ID of the PodSandbox.
   */
  'podSandboxId'?: (string);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector'?: ({[key: string]: string});
}

/**
 * ContainerFilter is used to filter containers.
 * All those fields are combined with 'AND'
 */
export interface ContainerFilter__Output {
  /**
   * ID of the container.
   */
  'id': (string);
  /**
   * State of the container.
   */
  'state': (_runtime_v1_ContainerStateValue__Output | null);
  /**
   * ID of the PodSandbox.
   */
  'podSandboxId': (string);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector': ({[key: string]: string});
}
