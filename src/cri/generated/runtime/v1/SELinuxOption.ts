// Original file: /work/main/proto/api.proto


/**
 * SELinuxOption are the labels to be applied to the container.
 */
export interface SELinuxOption {
  'user'?: (string);
  'role'?: (string);
  'type'?: (string);
  'level'?: (string);
}

/**
 * SELinuxOption are the labels to be applied to the container.
 */
export interface SELinuxOption__Output {
  'user': (string);
  'role': (string);
  'type': (string);
  'level': (string);
}
