// Original file: /work/main/proto/api.proto

/**
 * SupplementalGroupsPolicy defines how supplemental groups
 * of the first container processes are calculated.
 */
export const SupplementalGroupsPolicy = {
  /**
   * Merge means that the container's provided SupplementalGroups
   * and FsGroup (specified in SecurityContext) will be merged with
   * the primary user's groups as defined in the container image
   * (in /etc/group).
   */
  Merge: 'Merge',
  /**
   * Strict means that the container's provided SupplementalGroups
   * and FsGroup (specified in SecurityContext) will be used instead of
   * any groups defined in the container image.
   */
  Strict: 'Strict',
} as const;

/**
 * SupplementalGroupsPolicy defines how supplemental groups
 * of the first container processes are calculated.
 */
export type SupplementalGroupsPolicy =
  /**
   * Merge means that the container's provided SupplementalGroups
   * and FsGroup (specified in SecurityContext) will be merged with
   * the primary user's groups as defined in the container image
   * (in /etc/group).
   */
  | 'Merge'
  | 0
  /**
   * Strict means that the container's provided SupplementalGroups
   * and FsGroup (specified in SecurityContext) will be used instead of
   * any groups defined in the container image.
   */
  | 'Strict'
  | 1

/**
 * SupplementalGroupsPolicy defines how supplemental groups
 * of the first container processes are calculated.
 */
export type SupplementalGroupsPolicy__Output = typeof SupplementalGroupsPolicy[keyof typeof SupplementalGroupsPolicy]
