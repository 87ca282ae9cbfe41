// Original file: /work/main/proto/api.proto


export interface StartContainerRequest {
  /**
   * ID of the container to start.
   */
  'containerId'?: (string);
}

export interface StartContainerRequest__Output {
  /**
   * ID of the container to start.
   */
  'containerId': (string);
}
