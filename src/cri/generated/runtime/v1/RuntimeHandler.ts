// Original file: /work/main/proto/api.proto

import type { RuntimeHandlerFeatures as _runtime_v1_RuntimeHandlerFeatures, RuntimeHandlerFeatures__Output as _runtime_v1_RuntimeHandlerFeatures__Output } from '../../runtime/v1/RuntimeHandlerFeatures';

export interface RuntimeHandler {
  /**
   * Name must be unique in StatusResponse.
   * An empty string denotes the default handler.
   */
  'name'?: (string);
  /**
   * Supported features.
   */
  'features'?: (_runtime_v1_RuntimeHandlerFeatures | null);
}

export interface RuntimeHandler__Output {
  /**
   * Name must be unique in StatusResponse.
   * An empty string denotes the default handler.
   */
  'name': (string);
  /**
   * Supported features.
   */
  'features': (_runtime_v1_RuntimeHandlerFeatures__Output | null);
}
