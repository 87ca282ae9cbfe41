// Original file: /work/main/proto/api.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';

export interface ImageStatusRequest {
  /**
   * Spec of the image.
   */
  'image'?: (_runtime_v1_ImageSpec | null);
  /**
   * Verbose indicates whether to return extra information about the image.
   */
  'verbose'?: (boolean);
}

export interface ImageStatusRequest__Output {
  /**
   * Spec of the image.
   */
  'image': (_runtime_v1_ImageSpec__Output | null);
  /**
   * Verbose indicates whether to return extra information about the image.
   */
  'verbose': (boolean);
}
