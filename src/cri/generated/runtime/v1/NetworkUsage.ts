// Original file: /work/main/proto/api.proto

import type { NetworkInterfaceUsage as _runtime_v1_NetworkInterfaceUsage, NetworkInterfaceUsage__Output as _runtime_v1_NetworkInterfaceUsage__Output } from '../../runtime/v1/NetworkInterfaceUsage';
import type { Long } from '@grpc/proto-loader';

/**
 * NetworkUsage contains data about network resources.
 */
export interface NetworkUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * Stats for the default network interface.
   */
  'defaultInterface'?: (_runtime_v1_NetworkInterfaceUsage | null);
  /**
   * Stats for all found network interfaces, excluding the default.
   */
  'interfaces'?: (_runtime_v1_NetworkInterfaceUsage)[];
}

/**
 * NetworkUsage contains data about network resources.
 */
export interface NetworkUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * Stats for the default network interface.
   */
  'defaultInterface': (_runtime_v1_NetworkInterfaceUsage__Output | null);
  /**
   * Stats for all found network interfaces, excluding the default.
   */
  'interfaces': (_runtime_v1_NetworkInterfaceUsage__Output)[];
}
