// Original file: /work/main/proto/api.proto


/**
 * PodIP represents an ip of a Pod
 */
export interface PodIP {
  /**
   * an ip is a string representation of an IPv4 or an IPv6
   */
  'ip'?: (string);
}

/**
 * PodIP represents an ip of a Pod
 */
export interface PodIP__Output {
  /**
   * an ip is a string representation of an IPv4 or an IPv6
   */
  'ip': (string);
}
