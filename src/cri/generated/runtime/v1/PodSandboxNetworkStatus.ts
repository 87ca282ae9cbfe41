// Original file: /work/main/proto/api.proto

import type { PodIP as _runtime_v1_PodIP, PodIP__Output as _runtime_v1_PodIP__Output } from '../../runtime/v1/PodIP';

/**
 * PodSandboxNetworkStatus is the status of the network for a PodSandbox.
 * Currently ignored for pods sharing the host networking namespace.
 */
export interface PodSandboxNetworkStatus {
  /**
   * IP address of the PodSandbox.
   */
  'ip'?: (string);
  /**
   * list of additional ips (not inclusive of PodSandboxNetworkStatus.Ip) of the PodSandBoxNetworkStatus
   */
  'additionalIps'?: (_runtime_v1_PodIP)[];
}

/**
 * PodSandboxNetworkStatus is the status of the network for a PodSandbox.
 * Currently ignored for pods sharing the host networking namespace.
 */
export interface PodSandboxNetworkStatus__Output {
  /**
   * IP address of the PodSandbox.
   */
  'ip': (string);
  /**
   * list of additional ips (not inclusive of PodSandboxNetworkStatus.Ip) of the PodSandBoxNetworkStatus
   */
  'additionalIps': (_runtime_v1_PodIP__Output)[];
}
