// Original file: /work/main/proto/api.proto

import type { Long } from '@grpc/proto-loader';

export interface LinuxContainerUser {
  /**
   * uid is the primary uid initially attached to the first process in the container
   */
  'uid'?: (number | string | Long);
  /**
   * gid is the primary gid initially attached to the first process in the container
   */
  'gid'?: (number | string | Long);
  /**
   * supplemental_groups are the supplemental groups initially attached to the first process in the container
   */
  'supplementalGroups'?: (number | string | Long)[];
}

export interface LinuxContainerUser__Output {
  /**
   * uid is the primary uid initially attached to the first process in the container
   */
  'uid': (number);
  /**
   * gid is the primary gid initially attached to the first process in the container
   */
  'gid': (number);
  /**
   * supplemental_groups are the supplemental groups initially attached to the first process in the container
   */
  'supplementalGroups': (number)[];
}
