// Original file: /work/main/proto/api.proto

import type { PodSandboxMetadata as _runtime_v1_PodSandboxMetadata, PodSandboxMetadata__Output as _runtime_v1_PodSandboxMetadata__Output } from '../../runtime/v1/PodSandboxMetadata';
import type { PodSandboxState as _runtime_v1_PodSandboxState, PodSandboxState__Output as _runtime_v1_PodSandboxState__Output } from '../../runtime/v1/PodSandboxState';
import type { Long } from '@grpc/proto-loader';

/**
 * PodSandbox contains minimal information about a sandbox.
 */
export interface PodSandbox {
  /**
   * ID of the PodSandbox.
   */
  'id'?: (string);
  /**
   * Metadata of the PodSandbox.
   */
  'metadata'?: (_runtime_v1_PodSandboxMetadata | null);
  /**
   * State of the PodSandbox.
   */
  'state'?: (_runtime_v1_PodSandboxState);
  /**
   * Creation timestamps of the PodSandbox in nanoseconds. Must be > 0.
   */
  'createdAt'?: (number | string | Long);
  /**
   * Labels of the PodSandbox.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxConfig used to
   * instantiate this PodSandbox.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * runtime configuration used for this PodSandbox.
   */
  'runtimeHandler'?: (string);
}

/**
 * PodSandbox contains minimal information about a sandbox.
 */
export interface PodSandbox__Output {
  /**
   * ID of the PodSandbox.
   */
  'id': (string);
  /**
   * Metadata of the PodSandbox.
   */
  'metadata': (_runtime_v1_PodSandboxMetadata__Output | null);
  /**
   * State of the PodSandbox.
   */
  'state': (_runtime_v1_PodSandboxState__Output);
  /**
   * Creation timestamps of the PodSandbox in nanoseconds. Must be > 0.
   */
  'createdAt': (number);
  /**
   * Labels of the PodSandbox.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxConfig used to
   * instantiate this PodSandbox.
   */
  'annotations': ({[key: string]: string});
  /**
   * runtime configuration used for this PodSandbox.
   */
  'runtimeHandler': (string);
}
