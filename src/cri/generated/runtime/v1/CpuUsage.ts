// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

/**
 * CpuUsage provides the CPU usage information.
 */
export interface CpuUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * Cumulative CPU usage (sum across all cores) since object creation.
   */
  'usageCoreNanoSeconds'?: (_runtime_v1_UInt64Value | null);
  /**
   * Total CPU usage (sum of all cores) averaged over the sample window.
   * The "core" unit can be interpreted as CPU core-nanoseconds per second.
   */
  'usageNanoCores'?: (_runtime_v1_UInt64Value | null);
}

/**
 * CpuUsage provides the CPU usage information.
 */
export interface CpuUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * Cumulative CPU usage (sum across all cores) since object creation.
   */
  'usageCoreNanoSeconds': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Total CPU usage (sum of all cores) averaged over the sample window.
   * The "core" unit can be interpreted as CPU core-nanoseconds per second.
   */
  'usageNanoCores': (_runtime_v1_UInt64Value__Output | null);
}
