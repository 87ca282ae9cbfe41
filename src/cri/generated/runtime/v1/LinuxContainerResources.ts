// Original file: /work/main/proto/api.proto

import type { HugepageLimit as _runtime_v1_HugepageLimit, HugepageLimit__Output as _runtime_v1_HugepageLimit__Output } from '../../runtime/v1/HugepageLimit';
import type { Long } from '@grpc/proto-loader';

/**
 * LinuxContainerResources specifies Linux specific configuration for
 * resources.
 */
export interface LinuxContainerResources {
  /**
   * CPU CFS (Completely Fair Scheduler) period. Default: 0 (not specified).
   */
  'cpuPeriod'?: (number | string | Long);
  /**
   * CPU CFS (Completely Fair Scheduler) quota. Default: 0 (not specified).
   */
  'cpuQuota'?: (number | string | Long);
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares'?: (number | string | Long);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes'?: (number | string | Long);
  /**
   * OOMScoreAdj adjusts the oom-killer score. Default: 0 (not specified).
   */
  'oomScoreAdj'?: (number | string | Long);
  /**
   * CpusetCpus constrains the allowed set of logical CPUs. Default: "" (not specified).
   */
  'cpusetCpus'?: (string);
  /**
   * CpusetMems constrains the allowed set of memory nodes. Default: "" (not specified).
   */
  'cpusetMems'?: (string);
  /**
   * List of HugepageLimits to limit the HugeTLB usage of container per page size. Default: nil (not specified).
   */
  'hugepageLimits'?: (_runtime_v1_HugepageLimit)[];
  /**
   * Unified resources for cgroup v2. Default: nil (not specified).
   * Each key/value in the map refers to the cgroup v2.
   * e.g. "memory.max": "6937202688" or "io.weight": "default 100".
   */
  'unified'?: ({[key: string]: string});
  /**
   * Memory swap limit in bytes. Default 0 (not specified).
   */
  'memorySwapLimitInBytes'?: (number | string | Long);
}

/**
 * LinuxContainerResources specifies Linux specific configuration for
 * resources.
 */
export interface LinuxContainerResources__Output {
  /**
   * CPU CFS (Completely Fair Scheduler) period. Default: 0 (not specified).
   */
  'cpuPeriod': (number);
  /**
   * CPU CFS (Completely Fair Scheduler) quota. Default: 0 (not specified).
   */
  'cpuQuota': (number);
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares': (number);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes': (number);
  /**
   * OOMScoreAdj adjusts the oom-killer score. Default: 0 (not specified).
   */
  'oomScoreAdj': (number);
  /**
   * CpusetCpus constrains the allowed set of logical CPUs. Default: "" (not specified).
   */
  'cpusetCpus': (string);
  /**
   * CpusetMems constrains the allowed set of memory nodes. Default: "" (not specified).
   */
  'cpusetMems': (string);
  /**
   * List of HugepageLimits to limit the HugeTLB usage of container per page size. Default: nil (not specified).
   */
  'hugepageLimits': (_runtime_v1_HugepageLimit__Output)[];
  /**
   * Unified resources for cgroup v2. Default: nil (not specified).
   * Each key/value in the map refers to the cgroup v2.
   * e.g. "memory.max": "6937202688" or "io.weight": "default 100".
   */
  'unified': ({[key: string]: string});
  /**
   * Memory swap limit in bytes. Default 0 (not specified).
   */
  'memorySwapLimitInBytes': (number);
}
