// Original file: /work/main/proto/api.proto

import type { Container as _runtime_v1_Container, Container__Output as _runtime_v1_Container__Output } from '../../runtime/v1/Container';

export interface ListContainersResponse {
  /**
   * List of containers.
   */
  'containers'?: (_runtime_v1_Container)[];
}

export interface ListContainersResponse__Output {
  /**
   * List of containers.
   */
  'containers': (_runtime_v1_Container__Output)[];
}
