// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

/**
 * WindowsCpuGroupAffinity specifies the CPU mask and group to affinitize.
 * This is similar to the following _GROUP_AFFINITY structure:
 * https://learn.microsoft.com/en-us/windows-hardware/drivers/ddi/miniport/ns-miniport-_group_affinity
 */
export interface WindowsCpuGroupAffinity {
  /**
   * CPU mask relative to this CPU group.
   */
  'cpuMask'?: (number | string | Long);
  /**
   * Processor group the mask refers to, as returned by
   * GetLogicalProcessorInformationEx.
   */
  'cpuGroup'?: (number);
}

/**
 * WindowsCpuGroupAffinity specifies the CPU mask and group to affinitize.
 * This is similar to the following _GROUP_AFFINITY structure:
 * https://learn.microsoft.com/en-us/windows-hardware/drivers/ddi/miniport/ns-miniport-_group_affinity
 */
export interface WindowsCpuGroupAffinity__Output {
  /**
   * CPU mask relative to this CPU group.
   */
  'cpuMask': (number);
  /**
   * Processor group the mask refers to, as returned by
   * GetLogicalProcessorInformationEx.
   */
  'cpuGroup': (number);
}
