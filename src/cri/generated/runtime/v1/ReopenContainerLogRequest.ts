// Original file: /work/main/proto/api.proto


export interface ReopenContainerLogRequest {
  /**
   * ID of the container for which to reopen the log.
   */
  'containerId'?: (string);
}

export interface ReopenContainerLogRequest__Output {
  /**
   * ID of the container for which to reopen the log.
   */
  'containerId': (string);
}
