// Original file: /work/main/proto/api.proto

import type { Protocol as _runtime_v1_Protocol, Protocol__Output as _runtime_v1_Protocol__Output } from '../../runtime/v1/Protocol';

/**
 * PortMapping specifies the port mapping configurations of a sandbox.
 */
export interface PortMapping {
  /**
   * Protocol of the port mapping.
   */
  'protocol'?: (_runtime_v1_Protocol);
  /**
   * Port number within the container. Default: 0 (not specified).
   */
  'containerPort'?: (number);
  /**
   * Port number on the host. Default: 0 (not specified).
   */
  'hostPort'?: (number);
  /**
   * Host IP.
   */
  'hostIp'?: (string);
}

/**
 * PortMapping specifies the port mapping configurations of a sandbox.
 */
export interface PortMapping__Output {
  /**
   * Protocol of the port mapping.
   */
  'protocol': (_runtime_v1_Protocol__Output);
  /**
   * Port number within the container. Default: 0 (not specified).
   */
  'containerPort': (number);
  /**
   * Port number on the host. Default: 0 (not specified).
   */
  'hostPort': (number);
  /**
   * Host IP.
   */
  'hostIp': (string);
}
