// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Int64Value is the wrapper of int64.
 */
export interface Int64Value {
  /**
   * The value.
   */
  'value'?: (number | string | Long);
}

/**
 * Int64Value is the wrapper of int64.
 */
export interface Int64Value__Output {
  /**
   * The value.
   */
  'value': (number);
}
