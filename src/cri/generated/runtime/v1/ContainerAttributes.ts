// Original file: /work/main/proto/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata';

/**
 * ContainerAttributes provides basic information of the container.
 */
export interface ContainerAttributes {
  /**
   * ID of the container.
   */
  'id'?: (string);
  /**
   * Metadata of the container.
   */
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding ContainerConfig used to
   * instantiate the Container this status represents.
   */
  'annotations'?: ({[key: string]: string});
}

/**
 * ContainerAttributes provides basic information of the container.
 */
export interface ContainerAttributes__Output {
  /**
   * ID of the container.
   */
  'id': (string);
  /**
   * Metadata of the container.
   */
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding ContainerConfig used to
   * instantiate the Container this status represents.
   */
  'annotations': ({[key: string]: string});
}
