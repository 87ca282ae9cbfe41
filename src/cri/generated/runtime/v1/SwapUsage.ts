// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

export interface SwapUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * Available swap for use. This is defined as the swap limit - swapUsageBytes.
   */
  'swapAvailableBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Total memory in use. This includes all memory regardless of when it was accessed.
   */
  'swapUsageBytes'?: (_runtime_v1_UInt64Value | null);
}

export interface SwapUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * Available swap for use. This is defined as the swap limit - swapUsageBytes.
   */
  'swapAvailableBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Total memory in use. This includes all memory regardless of when it was accessed.
   */
  'swapUsageBytes': (_runtime_v1_UInt64Value__Output | null);
}
