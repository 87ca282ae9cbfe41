// Original file: /work/main/proto/api.proto


export interface CreateContainerResponse {
  /**
   * ID of the created container.
   */
  'containerId'?: (string);
}

export interface CreateContainerResponse__Output {
  /**
   * ID of the created container.
   */
  'containerId': (string);
}
