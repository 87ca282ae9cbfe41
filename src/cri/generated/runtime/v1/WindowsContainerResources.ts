// Original file: /work/main/proto/api.proto

import type { WindowsCpuGroupAffinity as _runtime_v1_WindowsCpuGroupAffinity, WindowsCpuGroupAffinity__Output as _runtime_v1_WindowsCpuGroupAffinity__Output } from '../../runtime/v1/WindowsCpuGroupAffinity';
import type { Long } from '@grpc/proto-loader';

/**
 * WindowsContainerResources specifies Windows specific configuration for
 * resources.
 */
export interface WindowsContainerResources {
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares'?: (number | string | Long);
  /**
   * Number of CPUs available to the container. Default: 0 (not specified).
   */
  'cpuCount'?: (number | string | Long);
  /**
   * Specifies the portion of processor cycles that this container can use as a percentage times 100.
   */
  'cpuMaximum'?: (number | string | Long);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes'?: (number | string | Long);
  /**
   * Specifies the size of the rootfs / scratch space in bytes to be configured for this container. Default: 0 (not specified).
   */
  'rootfsSizeInBytes'?: (number | string | Long);
  /**
   * Optionally specifies the set of CPUs to affinitize for this container.
   */
  'affinityCpus'?: (_runtime_v1_WindowsCpuGroupAffinity)[];
}

/**
 * WindowsContainerResources specifies Windows specific configuration for
 * resources.
 */
export interface WindowsContainerResources__Output {
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares': (number);
  /**
   * Number of CPUs available to the container. Default: 0 (not specified).
   */
  'cpuCount': (number);
  /**
   * Specifies the portion of processor cycles that this container can use as a percentage times 100.
   */
  'cpuMaximum': (number);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes': (number);
  /**
   * Specifies the size of the rootfs / scratch space in bytes to be configured for this container. Default: 0 (not specified).
   */
  'rootfsSizeInBytes': (number);
  /**
   * Optionally specifies the set of CPUs to affinitize for this container.
   */
  'affinityCpus': (_runtime_v1_WindowsCpuGroupAffinity__Output)[];
}
