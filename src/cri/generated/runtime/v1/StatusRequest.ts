// Original file: /work/main/proto/api.proto


export interface StatusRequest {
  /**
   * Verbose indicates whether to return extra information about the runtime.
   */
  'verbose'?: (boolean);
}

export interface StatusRequest__Output {
  /**
   * Verbose indicates whether to return extra information about the runtime.
   */
  'verbose': (boolean);
}
