// Original file: /work/main/proto/api.proto


export interface AttachResponse {
  /**
   * Fully qualified URL of the attach streaming server.
   */
  'url'?: (string);
}

export interface AttachResponse__Output {
  /**
   * Fully qualified URL of the attach streaming server.
   */
  'url': (string);
}
