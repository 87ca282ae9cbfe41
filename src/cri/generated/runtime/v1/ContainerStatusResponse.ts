// Original file: /work/main/proto/api.proto

import type { ContainerStatus as _runtime_v1_ContainerStatus, ContainerStatus__Output as _runtime_v1_ContainerStatus__Output } from '../../runtime/v1/ContainerStatus';

export interface ContainerStatusResponse {
  /**
   * Status of the container.
   */
  'status'?: (_runtime_v1_ContainerStatus | null);
  /**
   * Info is extra information of the Container. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. pid for linux container based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info'?: ({[key: string]: string});
}

export interface ContainerStatusResponse__Output {
  /**
   * Status of the container.
   */
  'status': (_runtime_v1_ContainerStatus__Output | null);
  /**
   * Info is extra information of the Container. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. pid for linux container based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info': ({[key: string]: string});
}
