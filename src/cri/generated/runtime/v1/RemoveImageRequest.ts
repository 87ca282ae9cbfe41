// Original file: /work/main/proto/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';

export interface RemoveImageRequest {
  /**
   * Spec of the image to remove.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
}

export interface RemoveImageRequest__Output {
  /**
   * Spec of the image to remove.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
}
