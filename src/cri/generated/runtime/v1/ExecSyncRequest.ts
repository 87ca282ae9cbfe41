// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

export interface ExecSyncRequest {
  /**
   * ID of the container.
   */
  'containerId'?: (string);
  /**
   * Command to execute.
   */
  'cmd'?: (string)[];
  /**
   * Timeout in seconds to stop the command. Default: 0 (run forever).
   */
  'timeout'?: (number | string | Long);
}

export interface ExecSyncRequest__Output {
  /**
   * ID of the container.
   */
  'containerId': (string);
  /**
   * Command to execute.
   */
  'cmd': (string)[];
  /**
   * Timeout in seconds to stop the command. Default: 0 (run forever).
   */
  'timeout': (number);
}
