// Original file: /work/main/proto/api.proto

import type { LinuxRuntimeConfiguration as _runtime_v1_LinuxRuntimeConfiguration, LinuxRuntimeConfiguration__Output as _runtime_v1_LinuxRuntimeConfiguration__Output } from '../../runtime/v1/LinuxRuntimeConfiguration';

export interface RuntimeConfigResponse {
  /**
   * Configuration information for Linux-based runtimes. This field contains
   * global runtime configuration options that are not specific to runtime
   * handlers.
   */
  'linux'?: (_runtime_v1_LinuxRuntimeConfiguration | null);
}

export interface RuntimeConfigResponse__Output {
  /**
   * Configuration information for Linux-based runtimes. This field contains
   * global runtime configuration options that are not specific to runtime
   * handlers.
   */
  'linux': (_runtime_v1_LinuxRuntimeConfiguration__Output | null);
}
