// Original file: /work/main/proto/api.proto


export interface ContainerStatsRequest {
  /**
   * ID of the container for which to retrieve stats.
   */
  'containerId'?: (string);
}

export interface ContainerStatsRequest__Output {
  /**
   * ID of the container for which to retrieve stats.
   */
  'containerId': (string);
}
