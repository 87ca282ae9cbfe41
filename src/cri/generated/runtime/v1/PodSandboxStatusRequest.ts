// Original file: /work/main/proto/api.proto


export interface PodSandboxStatusRequest {
  /**
   * ID of the PodSandbox for which to retrieve status.
   */
  'podSandboxId'?: (string);
  /**
   * Verbose indicates whether to return extra information about the pod sandbox.
   */
  'verbose'?: (boolean);
}

export interface PodSandboxStatusRequest__Output {
  /**
   * ID of the PodSandbox for which to retrieve status.
   */
  'podSandboxId': (string);
  /**
   * Verbose indicates whether to return extra information about the pod sandbox.
   */
  'verbose': (boolean);
}
