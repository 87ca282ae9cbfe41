// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

export interface CheckpointContainerRequest {
  /**
   * ID of the container to be checkpointed.
   */
  'containerId'?: (string);
  /**
   * Location of the checkpoint archive used for export
   */
  'location'?: (string);
  /**
   * Timeout in seconds for the checkpoint to complete.
   * Timeout of zero means to use the CRI default.
   * Timeout > 0 means to use the user specified timeout.
   */
  'timeout'?: (number | string | Long);
}

export interface CheckpointContainerRequest__Output {
  /**
   * ID of the container to be checkpointed.
   */
  'containerId': (string);
  /**
   * Location of the checkpoint archive used for export
   */
  'location': (string);
  /**
   * Timeout in seconds for the checkpoint to complete.
   * Timeout of zero means to use the CRI default.
   * Timeout > 0 means to use the user specified timeout.
   */
  'timeout': (number);
}
