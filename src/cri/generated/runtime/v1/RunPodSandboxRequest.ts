// Original file: /work/main/proto/api.proto

import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig';

export interface RunPodSandboxRequest {
  /**
   * Configuration for creating a PodSandbox.
   */
  'config'?: (_runtime_v1_PodSandboxConfig | null);
  /**
   * Named runtime configuration to use for this PodSandbox.
   * If the runtime handler is unknown, this request should be rejected.  An
   * empty string should select the default handler, equivalent to the
   * behavior before this feature was added.
   * See https://git.k8s.io/enhancements/keps/sig-node/585-runtime-class
   */
  'runtimeHandler'?: (string);
}

export interface RunPodSandboxRequest__Output {
  /**
   * Configuration for creating a PodSandbox.
   */
  'config': (_runtime_v1_PodSandboxConfig__Output | null);
  /**
   * Named runtime configuration to use for this PodSandbox.
   * If the runtime handler is unknown, this request should be rejected.  An
   * empty string should select the default handler, equivalent to the
   * behavior before this feature was added.
   * See https://git.k8s.io/enhancements/keps/sig-node/585-runtime-class
   */
  'runtimeHandler': (string);
}
