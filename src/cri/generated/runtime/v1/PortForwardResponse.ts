// Original file: /work/main/proto/api.proto


export interface PortForwardResponse {
  /**
   * Fully qualified URL of the port-forward streaming server.
   */
  'url'?: (string);
}

export interface PortForwardResponse__Output {
  /**
   * Fully qualified URL of the port-forward streaming server.
   */
  'url': (string);
}
