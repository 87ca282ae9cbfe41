// Original file: /work/main/proto/api.proto


export interface PodSandboxStatsRequest {
  /**
   * ID of the pod sandbox for which to retrieve stats.
   */
  'podSandboxId'?: (string);
}

export interface PodSandboxStatsRequest__Output {
  /**
   * ID of the pod sandbox for which to retrieve stats.
   */
  'podSandboxId': (string);
}
