// Original file: /work/main/proto/api.proto

import type { PodSandboxStats as _runtime_v1_PodSandboxStats, PodSandboxStats__Output as _runtime_v1_PodSandboxStats__Output } from '../../runtime/v1/PodSandboxStats';

export interface ListPodSandboxStatsResponse {
  /**
   * Stats of the pod sandbox.
   */
  'stats'?: (_runtime_v1_PodSandboxStats)[];
}

export interface ListPodSandboxStatsResponse__Output {
  /**
   * Stats of the pod sandbox.
   */
  'stats': (_runtime_v1_PodSandboxStats__Output)[];
}
