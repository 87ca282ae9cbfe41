// Original file: /work/main/proto/api.proto

import type { PodSandboxAttributes as _runtime_v1_PodSandboxAttributes, PodSandboxAttributes__Output as _runtime_v1_PodSandboxAttributes__Output } from '../../runtime/v1/PodSandboxAttributes';
import type { LinuxPodSandboxStats as _runtime_v1_LinuxPodSandboxStats, LinuxPodSandboxStats__Output as _runtime_v1_LinuxPodSandboxStats__Output } from '../../runtime/v1/LinuxPodSandboxStats';
import type { WindowsPodSandboxStats as _runtime_v1_WindowsPodSandboxStats, WindowsPodSandboxStats__Output as _runtime_v1_WindowsPodSandboxStats__Output } from '../../runtime/v1/WindowsPodSandboxStats';

/**
 * PodSandboxStats provides the resource usage statistics for a pod.
 * The linux or windows field will be populated depending on the platform.
 */
export interface PodSandboxStats {
  /**
   * Information of the pod.
   */
  'attributes'?: (_runtime_v1_PodSandboxAttributes | null);
  /**
   * Stats from linux.
   */
  'linux'?: (_runtime_v1_LinuxPodSandboxStats | null);
  /**
   * Stats from windows.
   */
  'windows'?: (_runtime_v1_WindowsPodSandboxStats | null);
}

/**
 * PodSandboxStats provides the resource usage statistics for a pod.
 * The linux or windows field will be populated depending on the platform.
 */
export interface PodSandboxStats__Output {
  /**
   * Information of the pod.
   */
  'attributes': (_runtime_v1_PodSandboxAttributes__Output | null);
  /**
   * Stats from linux.
   */
  'linux': (_runtime_v1_LinuxPodSandboxStats__Output | null);
  /**
   * Stats from windows.
   */
  'windows': (_runtime_v1_WindowsPodSandboxStats__Output | null);
}
