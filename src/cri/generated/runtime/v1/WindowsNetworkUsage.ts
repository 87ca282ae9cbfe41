// Original file: /work/main/proto/api.proto

import type { WindowsNetworkInterfaceUsage as _runtime_v1_WindowsNetworkInterfaceUsage, WindowsNetworkInterfaceUsage__Output as _runtime_v1_WindowsNetworkInterfaceUsage__Output } from '../../runtime/v1/WindowsNetworkInterfaceUsage';
import type { Long } from '@grpc/proto-loader';

/**
 * WindowsNetworkUsage contains data about network resources specific to Windows.
 */
export interface WindowsNetworkUsage {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp'?: (number | string | Long);
  /**
   * Stats for the default network interface.
   */
  'defaultInterface'?: (_runtime_v1_WindowsNetworkInterfaceUsage | null);
  /**
   * Stats for all found network interfaces, excluding the default.
   */
  'interfaces'?: (_runtime_v1_WindowsNetworkInterfaceUsage)[];
}

/**
 * WindowsNetworkUsage contains data about network resources specific to Windows.
 */
export interface WindowsNetworkUsage__Output {
  /**
   * Timestamp in nanoseconds at which the information were collected. Must be > 0.
   */
  'timestamp': (number);
  /**
   * Stats for the default network interface.
   */
  'defaultInterface': (_runtime_v1_WindowsNetworkInterfaceUsage__Output | null);
  /**
   * Stats for all found network interfaces, excluding the default.
   */
  'interfaces': (_runtime_v1_WindowsNetworkInterfaceUsage__Output)[];
}
