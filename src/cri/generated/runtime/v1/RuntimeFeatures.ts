// Original file: /work/main/proto/api.proto


/**
 * RuntimeFeatures describes the set of features implemented by the CRI implementation.
 * The features contained in the RuntimeFeatures should depend only on the cri implementation
 * independent of runtime handlers.
 */
export interface RuntimeFeatures {
  /**
   * supplemental_groups_policy is set to true if the runtime supports SupplementalGroupsPolicy and ContainerUser.
   */
  'supplementalGroupsPolicy'?: (boolean);
}

/**
 * RuntimeFeatures describes the set of features implemented by the CRI implementation.
 * The features contained in the RuntimeFeatures should depend only on the cri implementation
 * independent of runtime handlers.
 */
export interface RuntimeFeatures__Output {
  /**
   * supplemental_groups_policy is set to true if the runtime supports SupplementalGroupsPolicy and ContainerUser.
   */
  'supplementalGroupsPolicy': (boolean);
}
