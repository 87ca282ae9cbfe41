// Original file: /work/main/proto/api.proto

import type { NamespaceMode as _runtime_v1_NamespaceMode, NamespaceMode__Output as _runtime_v1_NamespaceMode__Output } from '../../runtime/v1/NamespaceMode';

/**
 * WindowsNamespaceOption provides options for Windows namespaces.
 */
export interface WindowsNamespaceOption {
  /**
   * Network namespace for this container/sandbox.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'network'?: (_runtime_v1_NamespaceMode);
}

/**
 * WindowsNamespaceOption provides options for Windows namespaces.
 */
export interface WindowsNamespaceOption__Output {
  /**
   * Network namespace for this container/sandbox.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'network': (_runtime_v1_NamespaceMode__Output);
}
