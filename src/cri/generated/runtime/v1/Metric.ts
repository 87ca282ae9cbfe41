// Original file: /work/main/proto/api.proto

import type { MetricType as _runtime_v1_MetricType, MetricType__Output as _runtime_v1_MetricType__Output } from '../../runtime/v1/MetricType';
import type { UInt64Value as _runtime_v1_UInt64Value, UInt64Value__Output as _runtime_v1_UInt64Value__Output } from '../../runtime/v1/UInt64Value';
import type { Long } from '@grpc/proto-loader';

export interface Metric {
  /**
   * Name must match a name previously returned in a MetricDescriptors call,
   * otherwise, it will be ignored.
   */
  'name'?: (string);
  /**
   * Timestamp should be 0 if the metric was gathered live.
   * If it was cached, the Timestamp should reflect the time in nanoseconds it was collected.
   */
  'timestamp'?: (number | string | Long);
  'metricType'?: (_runtime_v1_MetricType);
  /**
   * The corresponding LabelValues to the LabelKeys defined in the MetricDescriptor.
   * It is the responsibility of the runtime to correctly keep sorted the keys and values.
   * If the two slices have different length, the behavior is undefined.
   */
  'labelValues'?: (string)[];
  'value'?: (_runtime_v1_UInt64Value | null);
}

export interface Metric__Output {
  /**
   * Name must match a name previously returned in a MetricDescriptors call,
   * otherwise, it will be ignored.
   */
  'name': (string);
  /**
   * Timestamp should be 0 if the metric was gathered live.
   * If it was cached, the Timestamp should reflect the time in nanoseconds it was collected.
   */
  'timestamp': (number);
  'metricType': (_runtime_v1_MetricType__Output);
  /**
   * The corresponding LabelValues to the LabelKeys defined in the MetricDescriptor.
   * It is the responsibility of the runtime to correctly keep sorted the keys and values.
   * If the two slices have different length, the behavior is undefined.
   */
  'labelValues': (string)[];
  'value': (_runtime_v1_UInt64Value__Output | null);
}
