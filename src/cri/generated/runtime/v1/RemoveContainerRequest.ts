// Original file: /work/main/proto/api.proto


export interface RemoveContainerRequest {
  /**
   * ID of the container to remove.
   */
  'containerId'?: (string);
}

export interface RemoveContainerRequest__Output {
  /**
   * ID of the container to remove.
   */
  'containerId': (string);
}
