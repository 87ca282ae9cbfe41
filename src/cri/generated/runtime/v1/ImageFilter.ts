// Original file: /work/main/proto/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';

export interface ImageFilter {
  /**
   * Spec of the image.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
}

export interface ImageFilter__Output {
  /**
   * Spec of the image.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
}
