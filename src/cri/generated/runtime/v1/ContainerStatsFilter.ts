// Original file: /work/main/proto/api.proto


/**
 * ContainerStatsFilter is used to filter containers.
 * All those fields are combined with 'AND'
 */
export interface ContainerStatsFilter {
  /**
   * ID of the container.
   */
  'id'?: (string);
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
 * ContainerStatsFilter is used to filter containers.
 * All those fields are combined with 'AND'
 */
export interface ContainerStatsFilter__Output {
  /**
   * ID of the container.
   */
  'id': (string);
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
