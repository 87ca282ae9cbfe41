// Original file: /work/main/proto/api.proto

import type { PodSandboxMetadata as _runtime_v1_PodSandboxMetadata, PodSandboxMetadata__Output as _runtime_v1_PodSandboxMetadata__Output } from '../../runtime/v1/PodSandboxMetadata';

/**
 * PodSandboxAttributes provides basic information of the pod sandbox.
 */
export interface PodSandboxAttributes {
  /**
   * ID of the pod sandbox.
   */
  'id'?: (string);
  /**
   * Metadata of the pod sandbox.
   */
  'metadata'?: (_runtime_v1_PodSandboxMetadata | null);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxStatus used to
   * instantiate the PodSandbox this status represents.
   */
  'annotations'?: ({[key: string]: string});
}

/**
 * PodSandboxAttributes provides basic information of the pod sandbox.
 */
export interface PodSandboxAttributes__Output {
  /**
   * ID of the pod sandbox.
   */
  'id': (string);
  /**
   * Metadata of the pod sandbox.
   */
  'metadata': (_runtime_v1_PodSandboxMetadata__Output | null);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding PodSandboxStatus used to
   * instantiate the PodSandbox this status represents.
   */
  'annotations': ({[key: string]: string});
}
