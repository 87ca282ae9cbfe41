// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

/**
 * ProcessUsage are stats pertaining to processes.
 */
export interface ProcessUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * Number of processes.
   */
  'processCount'?: (_runtime_v1_UInt64Value | null);
}

/**
 * ProcessUsage are stats pertaining to processes.
 */
export interface ProcessUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * Number of processes.
   */
  'processCount': (_runtime_v1_UInt64Value__Output | null);
}
