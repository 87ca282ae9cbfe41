// Original file: /work/main/proto/api.proto


// Original file: /work/main/proto/api.proto

/**
 * Available profile types.
 */
export const _runtime_v1_SecurityProfile_ProfileType = {
  /**
   * The container runtime default profile should be used.
   */
  RuntimeDefault: 'RuntimeDefault',
  /**
   * Disable the feature for the sandbox or the container.
   */
  Unconfined: 'Unconfined',
  /**
   * A pre-defined profile on the node should be used.
   */
  Localhost: 'Localhost',
} as const;

/**
 * Available profile types.
 */
export type _runtime_v1_SecurityProfile_ProfileType =
  /**
   * The container runtime default profile should be used.
   */
  | 'RuntimeDefault'
  | 0
  /**
   * Disable the feature for the sandbox or the container.
   */
  | 'Unconfined'
  | 1
  /**
   * A pre-defined profile on the node should be used.
   */
  | 'Localhost'
  | 2

/**
 * Available profile types.
 */
export type _runtime_v1_SecurityProfile_ProfileType__Output = typeof _runtime_v1_SecurityProfile_ProfileType[keyof typeof _runtime_v1_SecurityProfile_ProfileType]

/**
 * A security profile which can be used for sandboxes and containers.
 */
export interface SecurityProfile {
  /**
   * Indicator which `ProfileType` should be applied.
   */
  'profileType'?: (_runtime_v1_SecurityProfile_ProfileType);
  /**
   * Indicates that a pre-defined profile on the node should be used.
   * Must only be set if `ProfileType` is `Localhost`.
   * For seccomp, it must be an absolute path to the seccomp profile.
   * For AppArmor, this field is the AppArmor `<profile name>/`
   */
  'localhostRef'?: (string);
}

/**
 * A security profile which can be used for sandboxes and containers.
 */
export interface SecurityProfile__Output {
  /**
   * Indicator which `ProfileType` should be applied.
   */
  'profileType': (_runtime_v1_SecurityProfile_ProfileType__Output);
  /**
   * Indicates that a pre-defined profile on the node should be used.
   * Must only be set if `ProfileType` is `Localhost`.
   * For seccomp, it must be an absolute path to the seccomp profile.
   * For AppArmor, this field is the AppArmor `<profile name>/`
   */
  'localhostRef': (string);
}
