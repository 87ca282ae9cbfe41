// Original file: /work/main/proto/api.proto

import type { ContainerStats as _runtime_v1_ContainerStats, ContainerStats__Output as _runtime_v1_ContainerStats__Output } from '../../runtime/v1/ContainerStats';

export interface ContainerStatsResponse {
  /**
   * Stats of the container.
   */
  'stats'?: (_runtime_v1_ContainerStats | null);
}

export interface ContainerStatsResponse__Output {
  /**
   * Stats of the container.
   */
  'stats': (_runtime_v1_ContainerStats__Output | null);
}
