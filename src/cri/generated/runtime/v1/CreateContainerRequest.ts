// Original file: /work/main/proto/api.proto

import type { ContainerConfig as _runtime_v1_ContainerConfig, ContainerConfig__Output as _runtime_v1_ContainerConfig__Output } from '../../runtime/v1/ContainerConfig';
import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig';

export interface CreateContainerRequest {
  /**
   * ID of the PodSandbox in which the container should be created.
   */
  'podSandboxId'?: (string);
  /**
   * Config of the container.
   */
  'config'?: (_runtime_v1_ContainerConfig | null);
  /**
   * Config of the PodSandbox. This is the same config that was passed
   * to RunPodSandboxRequest to create the PodSandbox. It is passed again
   * here just for easy reference. The PodSandboxConfig is immutable and
   * remains the same throughout the lifetime of the pod.
   */
  'sandboxConfig'?: (_runtime_v1_PodSandboxConfig | null);
}

export interface CreateContainerRequest__Output {
  /**
   * ID of the PodSandbox in which the container should be created.
   */
  'podSandboxId': (string);
  /**
   * Config of the container.
   */
  'config': (_runtime_v1_ContainerConfig__Output | null);
  /**
   * Config of the PodSandbox. This is the same config that was passed
   * to RunPodSandboxRequest to create the PodSandbox. It is passed again
   * here just for easy reference. The PodSandboxConfig is immutable and
   * remains the same throughout the lifetime of the pod.
   */
  'sandboxConfig': (_runtime_v1_PodSandboxConfig__Output | null);
}
