// Original file: /work/main/proto/api.proto

import type { PodSandboxMetadata as _runtime_v1_PodSandboxMetadata, PodSandboxMetadata__Output as _runtime_v1_PodSandboxMetadata__Output } from '../../runtime/v1/PodSandboxMetadata';
import type { PodSandboxState as _runtime_v1_PodSandboxState, PodSandboxState__Output as _runtime_v1_PodSandboxState__Output } from '../../runtime/v1/PodSandboxState';
import type { PodSandboxNetworkStatus as _runtime_v1_PodSandboxNetworkStatus, PodSandboxNetworkStatus__Output as _runtime_v1_PodSandboxNetworkStatus__Output } from '../../runtime/v1/PodSandboxNetworkStatus';
import type { LinuxPodSandboxStatus as _runtime_v1_LinuxPodSandboxStatus, LinuxPodSandboxStatus__Output as _runtime_v1_LinuxPodSandboxStatus__Output } from '../../runtime/v1/LinuxPodSandboxStatus';
import type { Long } from '@grpc/proto-loader';

/**
 * PodSandboxStatus contains the status of the PodSandbox.
 */
export interface PodSandboxStatus {
  /**
   * ID of the sandbox.
   */
  'id'?: (string);
  /**
   * Metadata of the sandbox.
   */
  'metadata'?: (_runtime_v1_PodSandboxMetadata | null);
  /**
   * State of the sandbox.
   */
  'state'?: (_runtime_v1_PodSandboxState);
  /**
   * Creation timestamp of the sandbox in nanoseconds. Must be > 0.
   */
  'createdAt'?: (number | string | Long);
  /**
   * Network contains network status if network is handled by the runtime.
   */
  'network'?: (_runtime_v1_PodSandboxNetworkStatus | null);
  /**
   * Linux-specific status to a pod sandbox.
   */
  'linux'?: (_runtime_v1_LinuxPodSandboxStatus | null);
  /**
   * Labels are key-value pairs that may be used to scope and select individual resources.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxConfig used to
   * instantiate the pod sandbox this status represents.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * runtime configuration used for this PodSandbox.
   */
  'runtimeHandler'?: (string);
}

/**
 * PodSandboxStatus contains the status of the PodSandbox.
 */
export interface PodSandboxStatus__Output {
  /**
   * ID of the sandbox.
   */
  'id': (string);
  /**
   * Metadata of the sandbox.
   */
  'metadata': (_runtime_v1_PodSandboxMetadata__Output | null);
  /**
   * State of the sandbox.
   */
  'state': (_runtime_v1_PodSandboxState__Output);
  /**
   * Creation timestamp of the sandbox in nanoseconds. Must be > 0.
   */
  'createdAt': (number);
  /**
   * Network contains network status if network is handled by the runtime.
   */
  'network': (_runtime_v1_PodSandboxNetworkStatus__Output | null);
  /**
   * Linux-specific status to a pod sandbox.
   */
  'linux': (_runtime_v1_LinuxPodSandboxStatus__Output | null);
  /**
   * Labels are key-value pairs that may be used to scope and select individual resources.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxConfig used to
   * instantiate the pod sandbox this status represents.
   */
  'annotations': ({[key: string]: string});
  /**
   * runtime configuration used for this PodSandbox.
   */
  'runtimeHandler': (string);
}
