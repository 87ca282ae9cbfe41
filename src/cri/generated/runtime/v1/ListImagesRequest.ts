// Original file: /work/main/proto/api.proto

import type { ImageFilter as _runtime_v1_ImageFilter, ImageFilter__Output as _runtime_v1_ImageFilter__Output } from '../../runtime/v1/ImageFilter';

export interface ListImagesRequest {
  /**
   * Filter to list images.
   */
  'filter'?: (_runtime_v1_ImageFilter | null);
}

export interface ListImagesRequest__Output {
  /**
   * Filter to list images.
   */
  'filter': (_runtime_v1_ImageFilter__Output | null);
}
