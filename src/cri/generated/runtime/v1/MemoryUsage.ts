// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

/**
 * MemoryUsage provides the memory usage information.
 */
export interface MemoryUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * The amount of working set memory in bytes.
   */
  'workingSetBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Available memory for use. This is defined as the memory limit - workingSetBytes.
   */
  'availableBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Total memory in use. This includes all memory regardless of when it was accessed.
   */
  'usageBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * The amount of anonymous and swap cache memory (includes transparent hugepages).
   */
  'rssBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative number of minor page faults.
   */
  'pageFaults'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative number of major page faults.
   */
  'majorPageFaults'?: (_runtime_v1_UInt64Value | null);
}

/**
 * MemoryUsage provides the memory usage information.
 */
export interface MemoryUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * The amount of working set memory in bytes.
   */
  'workingSetBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Available memory for use. This is defined as the memory limit - workingSetBytes.
   */
  'availableBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Total memory in use. This includes all memory regardless of when it was accessed.
   */
  'usageBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * The amount of anonymous and swap cache memory (includes transparent hugepages).
   */
  'rssBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative number of minor page faults.
   */
  'pageFaults': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative number of major page faults.
   */
  'majorPageFaults': (_runtime_v1_UInt64Value__Output | null);
}
