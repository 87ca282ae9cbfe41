// Original file: /work/main/proto/api.proto


/**
 * ContainerMetadata holds all necessary information for building the container
 * name. The container runtime is encouraged to expose the metadata in its user
 * interface for better user experience. E.g., runtime can construct a unique
 * container name based on the metadata. Note that (name, attempt) is unique
 * within a sandbox for the entire lifetime of the sandbox.
 */
export interface ContainerMetadata {
  /**
   * Name of the container. Same as the container name in the PodSpec.
   */
  'name'?: (string);
  /**
   * Attempt number of creating the container. Default: 0.
   */
  'attempt'?: (number);
}

/**
 * ContainerMetadata holds all necessary information for building the container
 * name. The container runtime is encouraged to expose the metadata in its user
 * interface for better user experience. E.g., runtime can construct a unique
 * container name based on the metadata. Note that (name, attempt) is unique
 * within a sandbox for the entire lifetime of the sandbox.
 */
export interface ContainerMetadata__Output {
  /**
   * Name of the container. Same as the container name in the PodSpec.
   */
  'name': (string);
  /**
   * Attempt number of creating the container. Default: 0.
   */
  'attempt': (number);
}
