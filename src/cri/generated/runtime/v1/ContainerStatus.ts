// Original file: /work/main/proto/api.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata';
import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { Mount as _runtime_v1_Mount, Mount__Output as _runtime_v1_Mount__Output } from '../../runtime/v1/Mount';
import type { ContainerResources as _runtime_v1_ContainerResources, ContainerResources__Output as _runtime_v1_ContainerResources__Output } from '../../runtime/v1/ContainerResources';
import type { ContainerUser as _runtime_v1_ContainerUser, ContainerUser__Output as _runtime_v1_ContainerUser__Output } from '../../runtime/v1/ContainerUser';
import type { Long } from '@grpc/proto-loader';

/**
 * ContainerStatus represents the status of a container.
 */
export interface ContainerStatus {
  /**
   * ID of the container.
   */
  'id'?: (string);
  /**
   * Metadata of the container.
   */
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  /**
   * Status of the container.
   */
  'state'?: (_runtime_v1_ContainerState);
  /**
   * Creation time of the container in nanoseconds.
   */
  'createdAt'?: (number | string | Long);
  /**
   * Start time of the container in nanoseconds. Default: 0 (not specified).
   */
  'startedAt'?: (number | string | Long);
  /**
   * Finish time of the container in nanoseconds. Default: 0 (not specified).
   */
  'finishedAt'?: (number | string | Long);
  /**
   * Exit code of the container. Only required when finished_at != 0. Default: 0.
   */
  'exitCode'?: (number);
  /**
   * Spec of the image.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
  /**
   * Digested reference to the image in use.
   */
  'imageRef'?: (string);
  /**
   * Brief CamelCase string explaining why container is in its current state.
   * Must be set to "OOMKilled" for containers terminated by cgroup-based Out-of-Memory killer.
   */
  'reason'?: (string);
  /**
   * Human-readable message indicating details about why container is in its
   * current state.
   */
  'message'?: (string);
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
  /**
   * Mounts for the container.
   */
  'mounts'?: (_runtime_v1_Mount)[];
  /**
   * Log path of container.
   */
  'logPath'?: (string);
  /**
   * Resource limits configuration of the container.
   */
  'resources'?: (_runtime_v1_ContainerResources | null);
  /**
   * Reference to the unique identifier of the image, on the node, as
   * returned in the image service apis.
   * 
   * Note: The image_ref above has been historically used by container
   * runtimes to reference images by digest. To separate and avoid possible
   * misusage, we now introduce the image_id field, which should always refer
   * to a unique image identifier on the node.
   */
  'imageId'?: (string);
  /**
   * User identities initially attached to the container
   */
  'user'?: (_runtime_v1_ContainerUser | null);
}

/**
 * ContainerStatus represents the status of a container.
 */
export interface ContainerStatus__Output {
  /**
   * ID of the container.
   */
  'id': (string);
  /**
   * Metadata of the container.
   */
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  /**
   * Status of the container.
   */
  'state': (_runtime_v1_ContainerState__Output);
  /**
   * Creation time of the container in nanoseconds.
   */
  'createdAt': (number);
  /**
   * Start time of the container in nanoseconds. Default: 0 (not specified).
   */
  'startedAt': (number);
  /**
   * Finish time of the container in nanoseconds. Default: 0 (not specified).
   */
  'finishedAt': (number);
  /**
   * Exit code of the container. Only required when finished_at != 0. Default: 0.
   */
  'exitCode': (number);
  /**
   * Spec of the image.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Digested reference to the image in use.
   */
  'imageRef': (string);
  /**
   * Brief CamelCase string explaining why container is in its current state.
   * Must be set to "OOMKilled" for containers terminated by cgroup-based Out-of-Memory killer.
   */
  'reason': (string);
  /**
   * Human-readable message indicating details about why container is in its
   * current state.
   */
  'message': (string);
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
  /**
   * Mounts for the container.
   */
  'mounts': (_runtime_v1_Mount__Output)[];
  /**
   * Log path of container.
   */
  'logPath': (string);
  /**
   * Resource limits configuration of the container.
   */
  'resources': (_runtime_v1_ContainerResources__Output | null);
  /**
   * Reference to the unique identifier of the image, on the node, as
   * returned in the image service apis.
   * 
   * Note: The image_ref above has been historically used by container
   * runtimes to reference images by digest. To separate and avoid possible
   * misusage, we now introduce the image_id field, which should always refer
   * to a unique image identifier on the node.
   */
  'imageId': (string);
  /**
   * User identities initially attached to the container
   */
  'user': (_runtime_v1_ContainerUser__Output | null);
}
