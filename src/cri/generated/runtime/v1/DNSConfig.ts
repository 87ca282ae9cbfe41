// Original file: /work/main/proto/api.proto


/**
 * DNSConfig specifies the DNS servers and search domains of a sandbox.
 */
export interface DNSConfig {
  /**
   * List of DNS servers of the cluster.
   */
  'servers'?: (string)[];
  /**
   * List of DNS search domains of the cluster.
   */
  'searches'?: (string)[];
  /**
   * List of DNS options. See https://linux.die.net/man/5/resolv.conf
   * for all available options.
   */
  'options'?: (string)[];
}

/**
 * DNSConfig specifies the DNS servers and search domains of a sandbox.
 */
export interface DNSConfig__Output {
  /**
   * List of DNS servers of the cluster.
   */
  'servers': (string)[];
  /**
   * List of DNS search domains of the cluster.
   */
  'searches': (string)[];
  /**
   * List of DNS options. See https://linux.die.net/man/5/resolv.conf
   * for all available options.
   */
  'options': (string)[];
}
