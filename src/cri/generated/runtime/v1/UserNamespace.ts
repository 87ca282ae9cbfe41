// Original file: /work/main/proto/api.proto

import type { NamespaceMode as _runtime_v1_NamespaceMode, NamespaceMode__Output as _runtime_v1_NamespaceMode__Output } from '../../runtime/v1/NamespaceMode';
import type { IDMapping as _runtime_v1_IDMapping, IDMapping__Output as _runtime_v1_IDMapping__Output } from '../../runtime/v1/IDMapping';

/**
 * UserNamespace describes the intended user namespace configuration for a pod sandbox.
 */
export interface UserNamespace {
  /**
   * Mode is the NamespaceMode for this UserNamespace.
   * Note: NamespaceMode for UserNamespace currently supports only POD and NODE, not CONTAINER OR TARGET.
   */
  'mode'?: (_runtime_v1_NamespaceMode);
  /**
   * Uids specifies the UID mappings for the user namespace.
   */
  'uids'?: (_runtime_v1_IDMapping)[];
  /**
   * Gids specifies the GID mappings for the user namespace.
   */
  'gids'?: (_runtime_v1_IDMapping)[];
}

/**
 * UserNamespace describes the intended user namespace configuration for a pod sandbox.
 */
export interface UserNamespace__Output {
  /**
   * Mode is the NamespaceMode for this UserNamespace.
   * Note: NamespaceMode for UserNamespace currently supports only POD and NODE, not CONTAINER OR TARGET.
   */
  'mode': (_runtime_v1_NamespaceMode__Output);
  /**
   * Uids specifies the UID mappings for the user namespace.
   */
  'uids': (_runtime_v1_IDMapping__Output)[];
  /**
   * Gids specifies the GID mappings for the user namespace.
   */
  'gids': (_runtime_v1_IDMapping__Output)[];
}
