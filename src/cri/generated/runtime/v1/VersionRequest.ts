// Original file: /work/main/proto/api.proto


export interface VersionRequest {
  /**
   * Version of the kubelet runtime API.
   */
  'version'?: (string);
}

export interface VersionRequest__Output {
  /**
   * Version of the kubelet runtime API.
   */
  'version': (string);
}
