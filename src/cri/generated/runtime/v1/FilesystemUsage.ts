// Original file: /work/main/proto/api.proto

import type { FilesystemIdentifier as _runtime_v1_FilesystemIdentifier, FilesystemIdentifier__Output as _runtime_v1_FilesystemIdentifier__Output } from '../../runtime/v1/FilesystemIdentifier';
import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

/**
 * FilesystemUsage provides the filesystem usage information.
 */
export interface FilesystemUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * The unique identifier of the filesystem.
   */
  'fsId'?: (_runtime_v1_FilesystemIdentifier | null);
  /**
   * UsedBytes represents the bytes used for images on the filesystem.
   * This may differ from the total bytes used on the filesystem and may not
   * equal CapacityBytes - AvailableBytes.
   */
  'usedBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * InodesUsed represents the inodes used by the images.
   * This may not equal InodesCapacity - InodesAvailable because the underlying
   * filesystem may also be used for purposes other than storing images.
   */
  'inodesUsed'?: (_runtime_v1_UInt64Value | null);
}

/**
 * FilesystemUsage provides the filesystem usage information.
 */
export interface FilesystemUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * The unique identifier of the filesystem.
   */
  'fsId': (_runtime_v1_FilesystemIdentifier__Output | null);
  /**
   * UsedBytes represents the bytes used for images on the filesystem.
   * This may differ from the total bytes used on the filesystem and may not
   * equal CapacityBytes - AvailableBytes.
   */
  'usedBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * InodesUsed represents the inodes used by the images.
   * This may not equal InodesCapacity - InodesAvailable because the underlying
   * filesystem may also be used for purposes other than storing images.
   */
  'inodesUsed': (_runtime_v1_UInt64Value__Output | null);
}
