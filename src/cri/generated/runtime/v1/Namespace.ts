// Original file: /work/main/proto/api.proto

import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption';

/**
 * Namespace contains paths to the namespaces.
 */
export interface Namespace {
  /**
   * Namespace options for Linux namespaces.
   */
  'options'?: (_runtime_v1_NamespaceOption | null);
}

/**
 * Namespace contains paths to the namespaces.
 */
export interface Namespace__Output {
  /**
   * Namespace options for Linux namespaces.
   */
  'options': (_runtime_v1_NamespaceOption__Output | null);
}
