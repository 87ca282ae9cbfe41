// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';

/**
 * WindowsNetworkInterfaceUsage contains resource value data about a network interface specific for Windows.
 */
export interface WindowsNetworkInterfaceUsage {
  /**
   * The name of the network interface.
   */
  'name'?: (string);
  /**
   * Cumulative count of bytes received.
   */
  'rxBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative count of receive errors encountered.
   */
  'rxPacketsDropped'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative count of bytes transmitted.
   */
  'txBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative count of transmit errors encountered.
   */
  'txPacketsDropped'?: (_runtime_v1_UInt64Value | null);
}

/**
 * WindowsNetworkInterfaceUsage contains resource value data about a network interface specific for Windows.
 */
export interface WindowsNetworkInterfaceUsage__Output {
  /**
   * The name of the network interface.
   */
  'name': (string);
  /**
   * Cumulative count of bytes received.
   */
  'rxBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative count of receive errors encountered.
   */
  'rxPacketsDropped': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative count of bytes transmitted.
   */
  'txBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative count of transmit errors encountered.
   */
  'txPacketsDropped': (_runtime_v1_UInt64Value__Output | null);
}
