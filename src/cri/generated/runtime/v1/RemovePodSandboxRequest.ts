// Original file: /work/main/proto/api.proto


export interface RemovePodSandboxRequest {
  /**
   * ID of the PodSandbox to remove.
   */
  'podSandboxId'?: (string);
}

export interface RemovePodSandboxRequest__Output {
  /**
   * ID of the PodSandbox to remove.
   */
  'podSandboxId': (string);
}
