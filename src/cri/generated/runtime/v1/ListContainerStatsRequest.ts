// Original file: /work/main/proto/api.proto

import type { ContainerStatsFilter as _runtime_v1_ContainerStatsFilter, ContainerStatsFilter__Output as _runtime_v1_ContainerStatsFilter__Output } from '../../runtime/v1/ContainerStatsFilter';

export interface ListContainerStatsRequest {
  /**
   * Filter for the list request.
   */
  'filter'?: (_runtime_v1_ContainerStatsFilter | null);
}

export interface ListContainerStatsRequest__Output {
  /**
   * Filter for the list request.
   */
  'filter': (_runtime_v1_ContainerStatsFilter__Output | null);
}
