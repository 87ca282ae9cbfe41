// Original file: /work/main/proto/api.proto

/**
 * A NamespaceMode describes the intended namespace configuration for each
 * of the namespaces (Network, PID, IPC) in NamespaceOption. Runtimes should
 * map these modes as appropriate for the technology underlying the runtime.
 */
export const NamespaceMode = {
  /**
   * A POD namespace is common to all containers in a pod.
   * For example, a container with a PID namespace of POD expects to view
   * all of the processes in all of the containers in the pod.
   */
  POD: 'POD',
  /**
   * A CONTAINER namespace is restricted to a single container.
   * For example, a container with a PID namespace of CONTAINER expects to
   * view only the processes in that container.
   */
  CONTAINER: 'CONTAINER',
  /**
   * A NODE namespace is the namespace of the Kubernetes node.
   * For example, a container with a PID namespace of NODE expects to view
   * all of the processes on the host running the kubelet.
   */
  NODE: 'NODE',
  /**
   * TARGET targets the namespace of another container. When this is specified,
   * a target_id must be specified in NamespaceOption and refer to a container
   * previously created with NamespaceMode CONTAINER. This containers namespace
   * will be made to match that of container target_id.
   * For example, a container with a PID namespace of TARGET expects to view
   * all of the processes that container target_id can view.
   */
  TARGET: 'TARGET',
} as const;

/**
 * A NamespaceMode describes the intended namespace configuration for each
 * of the namespaces (Network, PID, IPC) in NamespaceOption. Runtimes should
 * map these modes as appropriate for the technology underlying the runtime.
 */
export type NamespaceMode =
  /**
   * A POD namespace is common to all containers in a pod.
   * For example, a container with a PID namespace of POD expects to view
   * all of the processes in all of the containers in the pod.
   */
  | 'POD'
  | 0
  /**
   * A CONTAINER namespace is restricted to a single container.
   * For example, a container with a PID namespace of CONTAINER expects to
   * view only the processes in that container.
   */
  | 'CONTAINER'
  | 1
  /**
   * A NODE namespace is the namespace of the Kubernetes node.
   * For example, a container with a PID namespace of NODE expects to view
   * all of the processes on the host running the kubelet.
   */
  | 'NODE'
  | 2
  /**
   * TARGET targets the namespace of another container. When this is specified,
   * a target_id must be specified in NamespaceOption and refer to a container
   * previously created with NamespaceMode CONTAINER. This containers namespace
   * will be made to match that of container target_id.
   * For example, a container with a PID namespace of TARGET expects to view
   * all of the processes that container target_id can view.
   */
  | 'TARGET'
  | 3

/**
 * A NamespaceMode describes the intended namespace configuration for each
 * of the namespaces (Network, PID, IPC) in NamespaceOption. Runtimes should
 * map these modes as appropriate for the technology underlying the runtime.
 */
export type NamespaceMode__Output = typeof NamespaceMode[keyof typeof NamespaceMode]
