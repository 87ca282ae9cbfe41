// Original file: /work/main/proto/api.proto


export interface PullImageResponse {
  /**
   * Reference to the image in use. For most runtimes, this should be an
   * image ID or digest.
   */
  'imageRef'?: (string);
}

export interface PullImageResponse__Output {
  /**
   * Reference to the image in use. For most runtimes, this should be an
   * image ID or digest.
   */
  'imageRef': (string);
}
