// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

/**
 * WindowsMemoryUsage provides the memory usage information specific to Windows
 */
export interface WindowsMemoryUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * The amount of working set memory in bytes.
   */
  'workingSetBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Available memory for use. This is defined as the memory limit - commit_memory_bytes.
   */
  'availableBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative number of page faults.
   */
  'pageFaults'?: (_runtime_v1_UInt64Value | null);
  /**
   * Total commit memory in use. Commit memory is total of physical and virtual memory in use.
   */
  'commitMemoryBytes'?: (_runtime_v1_UInt64Value | null);
}

/**
 * WindowsMemoryUsage provides the memory usage information specific to Windows
 */
export interface WindowsMemoryUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * The amount of working set memory in bytes.
   */
  'workingSetBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Available memory for use. This is defined as the memory limit - commit_memory_bytes.
   */
  'availableBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative number of page faults.
   */
  'pageFaults': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Total commit memory in use. Commit memory is total of physical and virtual memory in use.
   */
  'commitMemoryBytes': (_runtime_v1_UInt64Value__Output | null);
}
