// Original file: /work/main/proto/api.proto

import type { ContainerAttributes as _runtime_v1_ContainerAttributes, ContainerAttributes__Output as _runtime_v1_ContainerAttributes__Output } from '../../runtime/v1/ContainerAttributes';
import type { CpuUsage as _runtime_v1_CpuUsage, CpuUsage__Output as _runtime_v1_CpuUsage__Output } from '../../runtime/v1/CpuUsage';
import type { MemoryUsage as _runtime_v1_MemoryUsage, MemoryUsage__Output as _runtime_v1_MemoryUsage__Output } from '../../runtime/v1/MemoryUsage';
import type { FilesystemUsage as _runtime_v1_FilesystemUsage, FilesystemUsage__Output as _runtime_v1_FilesystemUsage__Output } from '../../runtime/v1/FilesystemUsage';
import type { SwapUsage as _runtime_v1_SwapUsage, SwapUsage__Output as _runtime_v1_SwapUsage__Output } from '../../runtime/v1/SwapUsage';

/**
 * ContainerStats provides the resource usage statistics for a container.
 */
export interface ContainerStats {
  /**
   * Information of the container.
   */
  'attributes'?: (_runtime_v1_ContainerAttributes | null);
  /**
   * CPU usage gathered from the container.
   */
  'cpu'?: (_runtime_v1_CpuUsage | null);
  /**
   * Memory usage gathered from the container.
   */
  'memory'?: (_runtime_v1_MemoryUsage | null);
  /**
   * Usage of the writable layer.
   */
  'writableLayer'?: (_runtime_v1_FilesystemUsage | null);
  /**
   * Swap usage gathered from the container.
   */
  'swap'?: (_runtime_v1_SwapUsage | null);
}

/**
 * ContainerStats provides the resource usage statistics for a container.
 */
export interface ContainerStats__Output {
  /**
   * Information of the container.
   */
  'attributes': (_runtime_v1_ContainerAttributes__Output | null);
  /**
   * CPU usage gathered from the container.
   */
  'cpu': (_runtime_v1_CpuUsage__Output | null);
  /**
   * Memory usage gathered from the container.
   */
  'memory': (_runtime_v1_MemoryUsage__Output | null);
  /**
   * Usage of the writable layer.
   */
  'writableLayer': (_runtime_v1_FilesystemUsage__Output | null);
  /**
   * Swap usage gathered from the container.
   */
  'swap': (_runtime_v1_SwapUsage__Output | null);
}
