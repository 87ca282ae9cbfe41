// Original file: /work/main/proto/api.proto


export interface StopPodSandboxRequest {
  /**
   * ID of the PodSandbox to stop.
   */
  'podSandboxId'?: (string);
}

export interface StopPodSandboxRequest__Output {
  /**
   * ID of the PodSandbox to stop.
   */
  'podSandboxId': (string);
}
