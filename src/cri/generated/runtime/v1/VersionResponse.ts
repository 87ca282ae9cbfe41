// Original file: /work/main/proto/api.proto


export interface VersionResponse {
  /**
   * Version of the kubelet runtime API.
   */
  'version'?: (string);
  /**
   * Name of the container runtime.
   */
  'runtimeName'?: (string);
  /**
   * Version of the container runtime. The string must be
   * semver-compatible.
   */
  'runtimeVersion'?: (string);
  /**
   * API version of the container runtime. The string must be
   * semver-compatible.
   */
  'runtimeApiVersion'?: (string);
}

export interface VersionResponse__Output {
  /**
   * Version of the kubelet runtime API.
   */
  'version': (string);
  /**
   * Name of the container runtime.
   */
  'runtimeName': (string);
  /**
   * Version of the container runtime. The string must be
   * semver-compatible.
   */
  'runtimeVersion': (string);
  /**
   * API version of the container runtime. The string must be
   * semver-compatible.
   */
  'runtimeApiVersion': (string);
}
