// Original file: /work/main/proto/api.proto

import type { NamespaceMode as _runtime_v1_NamespaceMode, NamespaceMode__Output as _runtime_v1_NamespaceMode__Output } from '../../runtime/v1/NamespaceMode';
import type { UserNamespace as _runtime_v1_UserNamespace, UserNamespace__Output as _runtime_v1_UserNamespace__Output } from '../../runtime/v1/UserNamespace';

/**
 * NamespaceOption provides options for Linux namespaces.
 */
export interface NamespaceOption {
  /**
   * Network namespace for this container/sandbox.
   * Note: There is currently no way to set CONTAINER scoped network in the Kubernetes API.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'network'?: (_runtime_v1_NamespaceMode);
  /**
   * PID namespace for this container/sandbox.
   * Note: The CRI default is POD, but the v1.PodSpec default is CONTAINER.
   * The kubelet's runtime manager will set this to CONTAINER explicitly for v1 pods.
   * Namespaces currently set by the kubelet: POD, CONTAINER, NODE, TARGET
   */
  'pid'?: (_runtime_v1_NamespaceMode);
  /**
   * IPC namespace for this container/sandbox.
   * Note: There is currently no way to set CONTAINER scoped IPC in the Kubernetes API.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'ipc'?: (_runtime_v1_NamespaceMode);
  /**
   * Target Container ID for NamespaceMode of TARGET. This container must have been
   * previously created in the same pod. It is not possible to specify different targets
   * for each namespace.
   */
  'targetId'?: (string);
  /**
   * UsernsOptions for this pod sandbox.
   * The Kubelet picks the user namespace configuration to use for the pod sandbox.  The mappings
   * are specified as part of the UserNamespace struct.  If the struct is nil, then the POD mode
   * must be assumed.  This is done for backward compatibility with older Kubelet versions that
   * do not set a user namespace.
   */
  'usernsOptions'?: (_runtime_v1_UserNamespace | null);
}

/**
 * NamespaceOption provides options for Linux namespaces.
 */
export interface NamespaceOption__Output {
  /**
   * Network namespace for this container/sandbox.
   * Note: There is currently no way to set CONTAINER scoped network in the Kubernetes API.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'network': (_runtime_v1_NamespaceMode__Output);
  /**
   * PID namespace for this container/sandbox.
   * Note: The CRI default is POD, but the v1.PodSpec default is CONTAINER.
   * The kubelet's runtime manager will set this to CONTAINER explicitly for v1 pods.
   * Namespaces currently set by the kubelet: POD, CONTAINER, NODE, TARGET
   */
  'pid': (_runtime_v1_NamespaceMode__Output);
  /**
   * IPC namespace for this container/sandbox.
   * Note: There is currently no way to set CONTAINER scoped IPC in the Kubernetes API.
   * Namespaces currently set by the kubelet: POD, NODE
   */
  'ipc': (_runtime_v1_NamespaceMode__Output);
  /**
   * Target Container ID for NamespaceMode of TARGET. This container must have been
   * previously created in the same pod. It is not possible to specify different targets
   * for each namespace.
   */
  'targetId': (string);
  /**
   * UsernsOptions for this pod sandbox.
   * The Kubelet picks the user namespace configuration to use for the pod sandbox.  The mappings
   * are specified as part of the UserNamespace struct.  If the struct is nil, then the POD mode
   * must be assumed.  This is done for backward compatibility with older Kubelet versions that
   * do not set a user namespace.
   */
  'usernsOptions': (_runtime_v1_UserNamespace__Output | null);
}
