// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

export interface StopContainerRequest {
  /**
   * ID of the container to stop.
   */
  'containerId'?: (string);
  /**
   * Timeout in seconds to wait for the container to stop before forcibly
   * terminating it. Default: 0 (forcibly terminate the container immediately)
   */
  'timeout'?: (number | string | Long);
}

export interface StopContainerRequest__Output {
  /**
   * ID of the container to stop.
   */
  'containerId': (string);
  /**
   * Timeout in seconds to wait for the container to stop before forcibly
   * terminating it. Default: 0 (forcibly terminate the container immediately)
   */
  'timeout': (number);
}
