// Original file: /work/main/proto/api.proto


export interface RunPodSandboxResponse {
  /**
   * ID of the PodSandbox to run.
   */
  'podSandboxId'?: (string);
}

export interface RunPodSandboxResponse__Output {
  /**
   * ID of the PodSandbox to run.
   */
  'podSandboxId': (string);
}
