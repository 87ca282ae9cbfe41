// Original file: /work/main/proto/api.proto

import type { Image as _runtime_v1_Image, Image__Output as _runtime_v1_Image__Output } from '../../runtime/v1/Image';

export interface ImageStatusResponse {
  /**
   * Status of the image.
   */
  'image'?: (_runtime_v1_Image | null);
  /**
   * Info is extra information of the Image. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful
   * for debug, e.g. image config for oci image based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info'?: ({[key: string]: string});
}

export interface ImageStatusResponse__Output {
  /**
   * Status of the image.
   */
  'image': (_runtime_v1_Image__Output | null);
  /**
   * Info is extra information of the Image. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful
   * for debug, e.g. image config for oci image based container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info': ({[key: string]: string});
}
