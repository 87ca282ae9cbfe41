// Original file: /work/main/proto/api.proto

export const ContainerEventType = {
  /**
   * Container created
   */
  CONTAINER_CREATED_EVENT: 'CONTAINER_CREATED_EVENT',
  /**
   * Container started
   */
  CONTAINER_STARTED_EVENT: 'CONTAINER_STARTED_EVENT',
  /**
   * Container stopped
   */
  CONTAINER_STOPPED_EVENT: 'CONTAINER_STOPPED_EVENT',
  /**
   * Container deleted
   */
  CONTAINER_DELETED_EVENT: 'CONTAINER_DELETED_EVENT',
} as const;

export type ContainerEventType =
  /**
   * Container created
   */
  | 'CONTAINER_CREATED_EVENT'
  | 0
  /**
   * Container started
   */
  | 'CONTAINER_STARTED_EVENT'
  | 1
  /**
   * Container stopped
   */
  | 'CONTAINER_STOPPED_EVENT'
  | 2
  /**
   * Container deleted
   */
  | 'CONTAINER_DELETED_EVENT'
  | 3

export type ContainerEventType__Output = typeof ContainerEventType[keyof typeof ContainerEventType]
