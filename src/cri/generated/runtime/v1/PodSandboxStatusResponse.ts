// Original file: /work/main/proto/api.proto

import type { PodSandboxStatus as _runtime_v1_PodSandboxStatus, PodSandboxStatus__Output as _runtime_v1_PodSandboxStatus__Output } from '../../runtime/v1/PodSandboxStatus';
import type { ContainerStatus as _runtime_v1_ContainerStatus, ContainerStatus__Output as _runtime_v1_ContainerStatus__Output } from '../../runtime/v1/ContainerStatus';
import type { Long } from '@grpc/proto-loader';

export interface PodSandboxStatusResponse {
  /**
   * Status of the PodSandbox.
   */
  'status'?: (_runtime_v1_PodSandboxStatus | null);
  /**
   * Info is extra information of the PodSandbox. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. network namespace for linux container based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info'?: ({[key: string]: string});
  /**
   * Container statuses
   */
  'containersStatuses'?: (_runtime_v1_ContainerStatus)[];
  /**
   * Timestamp in nanoseconds at which container and pod statuses were recorded
   */
  'timestamp'?: (number | string | Long);
}

export interface PodSandboxStatusResponse__Output {
  /**
   * Status of the PodSandbox.
   */
  'status': (_runtime_v1_PodSandboxStatus__Output | null);
  /**
   * Info is extra information of the PodSandbox. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. network namespace for linux container based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info': ({[key: string]: string});
  /**
   * Container statuses
   */
  'containersStatuses': (_runtime_v1_ContainerStatus__Output)[];
  /**
   * Timestamp in nanoseconds at which container and pod statuses were recorded
   */
  'timestamp': (number);
}
