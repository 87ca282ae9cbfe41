// Original file: /work/main/proto/api.proto

import type { PodSandboxFilter as _runtime_v1_PodSandboxFilter, PodSandboxFilter__Output as _runtime_v1_PodSandboxFilter__Output } from '../../runtime/v1/PodSandboxFilter';

export interface ListPodSandboxRequest {
  /**
   * PodSandboxFilter to filter a list of PodSandboxes.
   */
  'filter'?: (_runtime_v1_PodSandboxFilter | null);
}

export interface ListPodSandboxRequest__Output {
  /**
   * PodSandboxFilter to filter a list of PodSandboxes.
   */
  'filter': (_runtime_v1_PodSandboxFilter__Output | null);
}
