// Original file: /work/main/proto/api.proto


export interface MetricDescriptor {
  /**
   * The name field will be used as a unique identifier of this MetricDescriptor,
   * and be used in conjunction with the Metric structure to populate the full Metric.
   */
  'name'?: (string);
  'help'?: (string);
  /**
   * When a metric uses this metric descriptor, it should only define
   * labels that have previously been declared in label_keys.
   * It is the responsibility of the runtime to correctly keep sorted the keys and values.
   * If the two slices have different length, the behavior is undefined.
   */
  'labelKeys'?: (string)[];
}

export interface MetricDescriptor__Output {
  /**
   * The name field will be used as a unique identifier of this MetricDescriptor,
   * and be used in conjunction with the Metric structure to populate the full Metric.
   */
  'name': (string);
  'help': (string);
  /**
   * When a metric uses this metric descriptor, it should only define
   * labels that have previously been declared in label_keys.
   * It is the responsibility of the runtime to correctly keep sorted the keys and values.
   * If the two slices have different length, the behavior is undefined.
   */
  'labelKeys': (string)[];
}
