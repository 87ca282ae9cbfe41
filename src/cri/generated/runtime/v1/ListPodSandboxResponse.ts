// Original file: /work/main/proto/api.proto

import type { PodSandbox as _runtime_v1_PodSandbox, PodSandbox__Output as _runtime_v1_PodSandbox__Output } from '../../runtime/v1/PodSandbox';

export interface ListPodSandboxResponse {
  /**
   * List of PodSandboxes.
   */
  'items'?: (_runtime_v1_PodSandbox)[];
}

export interface ListPodSandboxResponse__Output {
  /**
   * List of PodSandboxes.
   */
  'items': (_runtime_v1_PodSandbox__Output)[];
}
