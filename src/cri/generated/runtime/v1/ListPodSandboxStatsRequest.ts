// Original file: /work/main/proto/api.proto

import type { PodSandboxStatsFilter as _runtime_v1_PodSandboxStatsFilter, PodSandboxStatsFilter__Output as _runtime_v1_PodSandboxStatsFilter__Output } from '../../runtime/v1/PodSandboxStatsFilter';

export interface ListPodSandboxStatsRequest {
  /**
   * Filter for the list request.
   */
  'filter'?: (_runtime_v1_PodSandboxStatsFilter | null);
}

export interface ListPodSandboxStatsRequest__Output {
  /**
   * Filter for the list request.
   */
  'filter': (_runtime_v1_PodSandboxStatsFilter__Output | null);
}
