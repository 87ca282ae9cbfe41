// Original file: /work/main/proto/api.proto

import type { LinuxContainerUser as _runtime_v1_LinuxContainerUser, LinuxContainerUser__Output as _runtime_v1_LinuxContainerUser__Output } from '../../runtime/v1/LinuxContainerUser';

export interface ContainerUser {
  /**
   * User identities initially attached to first process in the Linux container.
   * Note that the actual running identity can be changed if the process has enough privilege to do so.
   */
  'linux'?: (_runtime_v1_LinuxContainerUser | null);
}

export interface ContainerUser__Output {
  /**
   * User identities initially attached to first process in the Linux container.
   * Note that the actual running identity can be changed if the process has enough privilege to do so.
   */
  'linux': (_runtime_v1_LinuxContainerUser__Output | null);
}
