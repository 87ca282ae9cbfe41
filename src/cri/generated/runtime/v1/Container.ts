// Original file: /work/main/proto/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState';
import type { Long } from '@grpc/proto-loader';

/**
 * Container provides the runtime information for a container, such as ID, hash,
 * state of the container.
 */
export interface Container {
  /**
   * ID of the container, used by the container runtime to identify
   * a container.
   */
  'id'?: (string);
  /**
   * ID of the sandbox to which this container belongs.
   */
  'podSandboxId'?: (string);
  /**
   * Metadata of the container.
   */
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  /**
   * Spec of the image.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
  /**
   * Digested reference to the image in use.
   */
  'imageRef'?: (string);
  /**
   * State of the container.
   */
  'state'?: (_runtime_v1_ContainerState);
  /**
   * Creation time of the container in nanoseconds.
   */
  'createdAt'?: (number | string | Long);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels'?: ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding ContainerConfig used to
   * instantiate this Container.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * Reference to the unique identifier of the image, on the node, as
   * returned in the image service apis.
   * 
   * Note: The image_ref above has been historically used by container
   * runtimes to reference images by digest. The image_ref has been also used
   * in the kubelet image garbage collection, which does not work with
   * digests at all. To separate and avoid possible misusage, we now
   * introduce the image_id field, which should always refer to a unique
   * image identifier on the node.
   */
  'imageId'?: (string);
}

/**
 * Container provides the runtime information for a container, such as ID, hash,
 * state of the container.
 */
export interface Container__Output {
  /**
   * ID of the container, used by the container runtime to identify
   * a container.
   */
  'id': (string);
  /**
   * ID of the sandbox to which this container belongs.
   */
  'podSandboxId': (string);
  /**
   * Metadata of the container.
   */
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  /**
   * Spec of the image.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Digested reference to the image in use.
   */
  'imageRef': (string);
  /**
   * State of the container.
   */
  'state': (_runtime_v1_ContainerState__Output);
  /**
   * Creation time of the container in nanoseconds.
   */
  'createdAt': (number);
  /**
   * Key-value pairs that may be used to scope and select individual resources.
   */
  'labels': ({[key: string]: string});
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * Annotations MUST NOT be altered by the runtime; the value of this field
   * MUST be identical to that of the corresponding ContainerConfig used to
   * instantiate this Container.
   */
  'annotations': ({[key: string]: string});
  /**
   * Reference to the unique identifier of the image, on the node, as
   * returned in the image service apis.
   * 
   * Note: The image_ref above has been historically used by container
   * runtimes to reference images by digest. The image_ref has been also used
   * in the kubelet image garbage collection, which does not work with
   * digests at all. To separate and avoid possible misusage, we now
   * introduce the image_id field, which should always refer to a unique
   * image identifier on the node.
   */
  'imageId': (string);
}
