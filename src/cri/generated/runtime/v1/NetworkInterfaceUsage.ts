// Original file: /work/main/proto/api.proto

import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';

/**
 * NetworkInterfaceUsage contains resource value data about a network interface.
 */
export interface NetworkInterfaceUsage {
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
  'rxErrors'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative count of bytes transmitted.
   */
  'txBytes'?: (_runtime_v1_UInt64Value | null);
  /**
   * Cumulative count of transmit errors encountered.
   */
  'txErrors'?: (_runtime_v1_UInt64Value | null);
}

/**
 * NetworkInterfaceUsage contains resource value data about a network interface.
 */
export interface NetworkInterfaceUsage__Output {
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
  'rxErrors': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative count of bytes transmitted.
   */
  'txBytes': (_runtime_v1_UInt64Value__Output | null);
  /**
   * Cumulative count of transmit errors encountered.
   */
  'txErrors': (_runtime_v1_UInt64Value__Output | null);
}
