// Original file: /work/main/proto/api.proto


export interface ContainerStatusRequest {
  /**
   * ID of the container for which to retrieve status.
   */
  'containerId'?: (string);
  /**
   * Verbose indicates whether to return extra information about the container.
   */
  'verbose'?: (boolean);
}

export interface ContainerStatusRequest__Output {
  /**
   * ID of the container for which to retrieve status.
   */
  'containerId': (string);
  /**
   * Verbose indicates whether to return extra information about the container.
   */
  'verbose': (boolean);
}
