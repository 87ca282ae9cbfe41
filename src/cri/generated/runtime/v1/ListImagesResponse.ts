// Original file: /work/main/proto/api.proto

import type { Image as _runtime_v1_Image, Image__Output as _runtime_v1_Image__Output } from '../../runtime/v1/Image';

export interface ListImagesResponse {
  /**
   * List of images.
   */
  'images'?: (_runtime_v1_Image)[];
}

export interface ListImagesResponse__Output {
  /**
   * List of images.
   */
  'images': (_runtime_v1_Image__Output)[];
}
