// Original file: /work/main/proto/api.proto

import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { Long } from '@grpc/proto-loader';

/**
 * Basic information about a container image.
 */
export interface Image {
  /**
   * ID of the image.
   */
  'id'?: (string);
  /**
   * Other names by which this image is known.
   */
  'repoTags'?: (string)[];
  /**
   * Digests by which this image is known.
   */
  'repoDigests'?: (string)[];
  /**
   * Size of the image in bytes. Must be > 0.
   */
  'size'?: (number | string | Long);
  /**
   * UID that will run the command(s). This is used as a default if no user is
   * specified when creating the container. UID and the following user name
   * are mutually exclusive.
   */
  'uid'?: (_runtime_v1_Int64Value | null);
  /**
   * User name that will run the command(s). This is used if UID is not set
   * and no user is specified when creating container.
   */
  'username'?: (string);
  /**
   * ImageSpec for image which includes annotations
   */
  'spec'?: (_runtime_v1_ImageSpec | null);
  /**
   * Recommendation on whether this image should be exempt from garbage collection.
   * It must only be treated as a recommendation -- the client can still request that the image be deleted,
   * and the runtime must oblige.
   */
  'pinned'?: (boolean);
}

/**
 * Basic information about a container image.
 */
export interface Image__Output {
  /**
   * ID of the image.
   */
  'id': (string);
  /**
   * Other names by which this image is known.
   */
  'repoTags': (string)[];
  /**
   * Digests by which this image is known.
   */
  'repoDigests': (string)[];
  /**
   * Size of the image in bytes. Must be > 0.
   */
  'size': (number);
  /**
   * UID that will run the command(s). This is used as a default if no user is
   * specified when creating the container. UID and the following user name
   * are mutually exclusive.
   */
  'uid': (_runtime_v1_Int64Value__Output | null);
  /**
   * User name that will run the command(s). This is used if UID is not set
   * and no user is specified when creating container.
   */
  'username': (string);
  /**
   * ImageSpec for image which includes annotations
   */
  'spec': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Recommendation on whether this image should be exempt from garbage collection.
   * It must only be treated as a recommendation -- the client can still request that the image be deleted,
   * and the runtime must oblige.
   */
  'pinned': (boolean);
}
