// Original file: /work/main/proto/api.proto


export interface ExecResponse {
  /**
   * Fully qualified URL of the exec streaming server.
   */
  'url'?: (string);
}

export interface ExecResponse__Output {
  /**
   * Fully qualified URL of the exec streaming server.
   */
  'url': (string);
}
