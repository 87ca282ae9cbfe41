// Original file: /work/main/proto/api.proto


/**
 * PodSandboxMetadata holds all necessary information for building the sandbox name.
 * The container runtime is encouraged to expose the metadata associated with the
 * PodSandbox in its user interface for better user experience. For example,
 * the runtime can construct a unique PodSandboxName based on the metadata.
 */
export interface PodSandboxMetadata {
  /**
   * Pod name of the sandbox. Same as the pod name in the Pod ObjectMeta.
   */
  'name'?: (string);
  /**
   * Pod UID of the sandbox. Same as the pod UID in the Pod ObjectMeta.
   */
  'uid'?: (string);
  /**
   * Pod namespace of the sandbox. Same as the pod namespace in the Pod ObjectMeta.
   */
  'namespace'?: (string);
  /**
   * Attempt number of creating the sandbox. Default: 0.
   */
  'attempt'?: (number);
}

/**
 * PodSandboxMetadata holds all necessary information for building the sandbox name.
 * The container runtime is encouraged to expose the metadata associated with the
 * PodSandbox in its user interface for better user experience. For example,
 * the runtime can construct a unique PodSandboxName based on the metadata.
 */
export interface PodSandboxMetadata__Output {
  /**
   * Pod name of the sandbox. Same as the pod name in the Pod ObjectMeta.
   */
  'name': (string);
  /**
   * Pod UID of the sandbox. Same as the pod UID in the Pod ObjectMeta.
   */
  'uid': (string);
  /**
   * Pod namespace of the sandbox. Same as the pod namespace in the Pod ObjectMeta.
   */
  'namespace': (string);
  /**
   * Attempt number of creating the sandbox. Default: 0.
   */
  'attempt': (number);
}
