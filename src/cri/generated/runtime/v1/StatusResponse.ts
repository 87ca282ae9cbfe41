// Original file: /work/main/proto/api.proto

import type { RuntimeStatus as _runtime_v1_RuntimeStatus, RuntimeStatus__Output as _runtime_v1_RuntimeStatus__Output } from '../../runtime/v1/RuntimeStatus';
import type { RuntimeHandler as _runtime_v1_RuntimeHandler, RuntimeHandler__Output as _runtime_v1_RuntimeHandler__Output } from '../../runtime/v1/RuntimeHandler';
import type { RuntimeFeatures as _runtime_v1_RuntimeFeatures, RuntimeFeatures__Output as _runtime_v1_RuntimeFeatures__Output } from '../../runtime/v1/RuntimeFeatures';

export interface StatusResponse {
  /**
   * Status of the Runtime.
   */
  'status'?: (_runtime_v1_RuntimeStatus | null);
  /**
   * Info is extra information of the Runtime. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. plugins used by the container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info'?: ({[key: string]: string});
  /**
   * Runtime handlers.
   */
  'runtimeHandlers'?: (_runtime_v1_RuntimeHandler)[];
  /**
   * features describes the set of features implemented by the CRI implementation.
   * This field is supposed to propagate to NodeFeatures in Kubernetes API.
   */
  'features'?: (_runtime_v1_RuntimeFeatures | null);
}

export interface StatusResponse__Output {
  /**
   * Status of the Runtime.
   */
  'status': (_runtime_v1_RuntimeStatus__Output | null);
  /**
   * Info is extra information of the Runtime. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. plugins used by the container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info': ({[key: string]: string});
  /**
   * Runtime handlers.
   */
  'runtimeHandlers': (_runtime_v1_RuntimeHandler__Output)[];
  /**
   * features describes the set of features implemented by the CRI implementation.
   * This field is supposed to propagate to NodeFeatures in Kubernetes API.
   */
  'features': (_runtime_v1_RuntimeFeatures__Output | null);
}
