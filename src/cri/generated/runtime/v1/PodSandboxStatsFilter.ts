// Original file: /work/main/proto/api.proto


/**
 * PodSandboxStatsFilter is used to filter the list of pod sandboxes to retrieve stats for.
 * All those fields are combined with 'AND'.
 */
export interface PodSandboxStatsFilter {
  /**
   * ID of the pod sandbox.
   */
  'id'?: (string);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector'?: ({[key: string]: string});
}

/**
 * PodSandboxStatsFilter is used to filter the list of pod sandboxes to retrieve stats for.
 * All those fields are combined with 'AND'.
 */
export interface PodSandboxStatsFilter__Output {
  /**
   * ID of the pod sandbox.
   */
  'id': (string);
  /**
   * LabelSelector to select matches.
   * Only api.MatchLabels is supported for now and the requirements
   * are ANDed. MatchExpressions is not supported yet.
   */
  'labelSelector': ({[key: string]: string});
}
