// Original file: /work/main/proto/api.proto


/**
 * AuthConfig contains authorization information for connecting to a registry.
 */
export interface AuthConfig {
  'username'?: (string);
  'password'?: (string);
  'auth'?: (string);
  'serverAddress'?: (string);
  /**
   * IdentityToken is used to authenticate the user and get
   * an access token for the registry.
   */
  'identityToken'?: (string);
  /**
   * RegistryToken is a bearer token to be sent to a registry
   */
  'registryToken'?: (string);
}

/**
 * AuthConfig contains authorization information for connecting to a registry.
 */
export interface AuthConfig__Output {
  'username': (string);
  'password': (string);
  'auth': (string);
  'serverAddress': (string);
  /**
   * IdentityToken is used to authenticate the user and get
   * an access token for the registry.
   */
  'identityToken': (string);
  /**
   * RegistryToken is a bearer token to be sent to a registry
   */
  'registryToken': (string);
}
