// Original file: /work/main/proto/api.proto


/**
 * WindowsContainerSecurityContext holds windows security configuration that will be applied to a container.
 */
export interface WindowsContainerSecurityContext {
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image and be resolved there by the runtime;
   * otherwise, the runtime MUST return error.
   */
  'runAsUsername'?: (string);
  /**
   * The contents of the GMSA credential spec to use to run this container.
   */
  'credentialSpec'?: (string);
  /**
   * Indicates whether a container is to be run as a HostProcess container.
   */
  'hostProcess'?: (boolean);
}

/**
 * WindowsContainerSecurityContext holds windows security configuration that will be applied to a container.
 */
export interface WindowsContainerSecurityContext__Output {
  /**
   * User name to run the container process as. If specified, the user MUST
   * exist in the container image and be resolved there by the runtime;
   * otherwise, the runtime MUST return error.
   */
  'runAsUsername': (string);
  /**
   * The contents of the GMSA credential spec to use to run this container.
   */
  'credentialSpec': (string);
  /**
   * Indicates whether a container is to be run as a HostProcess container.
   */
  'hostProcess': (boolean);
}
