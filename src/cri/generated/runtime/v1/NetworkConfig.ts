// Original file: /work/main/proto/api.proto


export interface NetworkConfig {
  /**
   * CIDR to use for pod IP addresses. If the CIDR is empty, runtimes
   * should omit it.
   */
  'podCidr'?: (string);
}

export interface NetworkConfig__Output {
  /**
   * CIDR to use for pod IP addresses. If the CIDR is empty, runtimes
   * should omit it.
   */
  'podCidr': (string);
}
