// Original file: /work/main/proto/api.proto

import type { ContainerEventType as _runtime_v1_ContainerEventType, ContainerEventType__Output as _runtime_v1_ContainerEventType__Output } from '../../runtime/v1/ContainerEventType';
import type { PodSandboxStatus as _runtime_v1_PodSandboxStatus, PodSandboxStatus__Output as _runtime_v1_PodSandboxStatus__Output } from '../../runtime/v1/PodSandboxStatus';
import type { ContainerStatus as _runtime_v1_ContainerStatus, ContainerStatus__Output as _runtime_v1_ContainerStatus__Output } from '../../runtime/v1/ContainerStatus';
import type { Long } from '@grpc/proto-loader';

export interface ContainerEventResponse {
  /**
   * ID of the container
   */
  'containerId'?: (string);
  /**
   * Type of the container event
   */
  'containerEventType'?: (_runtime_v1_ContainerEventType);
  /**
   * Creation timestamp in nanoseconds of this event
   */
  'createdAt'?: (number | string | Long);
  /**
   * Sandbox status
   */
  'podSandboxStatus'?: (_runtime_v1_PodSandboxStatus | null);
  /**
   * Container statuses
   */
  'containersStatuses'?: (_runtime_v1_ContainerStatus)[];
}

export interface ContainerEventResponse__Output {
  /**
   * ID of the container
   */
  'containerId': (string);
  /**
   * Type of the container event
   */
  'containerEventType': (_runtime_v1_ContainerEventType__Output);
  /**
   * Creation timestamp in nanoseconds of this event
   */
  'createdAt': (number);
  /**
   * Sandbox status
   */
  'podSandboxStatus': (_runtime_v1_PodSandboxStatus__Output | null);
  /**
   * Container statuses
   */
  'containersStatuses': (_runtime_v1_ContainerStatus__Output)[];
}
