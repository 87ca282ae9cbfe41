// Original file: /work/main/proto/api.proto

export const MountPropagation = {
  /**
   * No mount propagation ("rprivate" in Linux terminology).
   */
  PROPAGATION_PRIVATE: 'PROPAGATION_PRIVATE',
  /**
   * Mounts get propagated from the host to the container ("rslave" in Linux).
   */
  PROPAGATION_HOST_TO_CONTAINER: 'PROPAGATION_HOST_TO_CONTAINER',
  /**
   * Mounts get propagated from the host to the container and from the
   * container to the host ("rshared" in Linux).
   */
  PROPAGATION_BIDIRECTIONAL: 'PROPAGATION_BIDIRECTIONAL',
} as const;

export type MountPropagation =
  /**
   * No mount propagation ("rprivate" in Linux terminology).
   */
  | 'PROPAGATION_PRIVATE'
  | 0
  /**
   * Mounts get propagated from the host to the container ("rslave" in Linux).
   */
  | 'PROPAGATION_HOST_TO_CONTAINER'
  | 1
  /**
   * Mounts get propagated from the host to the container and from the
   * container to the host ("rshared" in Linux).
   */
  | 'PROPAGATION_BIDIRECTIONAL'
  | 2

export type MountPropagation__Output = typeof MountPropagation[keyof typeof MountPropagation]
