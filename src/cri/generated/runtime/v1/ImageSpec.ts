// Original file: /work/main/proto/api.proto


/**
 * ImageSpec is an internal representation of an image.
 */
export interface ImageSpec {
  /**
   * Container's Image field (e.g. imageID or imageDigest).
   */
  'image'?: (string);
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * ImageSpec Annotations can be used to help the runtime target specific
   * images in multi-arch images.
   */
  'annotations'?: ({[key: string]: string});
  /**
   * The container image reference specified by the user (e.g. image[:tag] or digest).
   * Only set if available within the RPC context.
   */
  'userSpecifiedImage'?: (string);
  /**
   * Runtime handler to use for pulling the image.
   * If the runtime handler is unknown, the request should be rejected.
   * An empty string would select the default runtime handler.
   */
  'runtimeHandler'?: (string);
}

/**
 * ImageSpec is an internal representation of an image.
 */
export interface ImageSpec__Output {
  /**
   * Container's Image field (e.g. imageID or imageDigest).
   */
  'image': (string);
  /**
   * Unstructured key-value map holding arbitrary metadata.
   * ImageSpec Annotations can be used to help the runtime target specific
   * images in multi-arch images.
   */
  'annotations': ({[key: string]: string});
  /**
   * The container image reference specified by the user (e.g. image[:tag] or digest).
   * Only set if available within the RPC context.
   */
  'userSpecifiedImage': (string);
  /**
   * Runtime handler to use for pulling the image.
   * If the runtime handler is unknown, the request should be rejected.
   * An empty string would select the default runtime handler.
   */
  'runtimeHandler': (string);
}
