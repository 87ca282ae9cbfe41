// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

/**
 * UInt64Value is the wrapper of uint64.
 */
export interface UInt64Value {
  /**
   * The value.
   */
  'value'?: (number | string | Long);
}

/**
 * UInt64Value is the wrapper of uint64.
 */
export interface UInt64Value__Output {
  /**
   * The value.
   */
  'value': (number);
}
