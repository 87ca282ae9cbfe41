// Original file: /work/main/proto/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { AuthConfig as _runtime_v1_AuthConfig, AuthConfig__Output as _runtime_v1_AuthConfig__Output } from '../../runtime/v1/AuthConfig';
import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig';

export interface PullImageRequest {
  /**
   * Spec of the image.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
  /**
   * Authentication configuration for pulling the image.
   */
  'auth'?: (_runtime_v1_AuthConfig | null);
  /**
   * Config of the PodSandbox, which is used to pull image in PodSandbox context.
   */
  'sandboxConfig'?: (_runtime_v1_PodSandboxConfig | null);
}

export interface PullImageRequest__Output {
  /**
   * Spec of the image.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Authentication configuration for pulling the image.
   */
  'auth': (_runtime_v1_AuthConfig__Output | null);
  /**
   * Config of the PodSandbox, which is used to pull image in PodSandbox context.
   */
  'sandboxConfig': (_runtime_v1_PodSandboxConfig__Output | null);
}
