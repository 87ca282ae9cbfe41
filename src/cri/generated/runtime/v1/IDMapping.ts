// Original file: /work/main/proto/api.proto


/**
 * IDMapping describes host to container ID mappings for a pod sandbox.
 */
export interface IDMapping {
  /**
   * HostId is the id on the host.
   */
  'hostId'?: (number);
  /**
   * ContainerId is the id in the container.
   */
  'containerId'?: (number);
  /**
   * Length is the size of the range to map.
   */
  'length'?: (number);
}

/**
 * IDMapping describes host to container ID mappings for a pod sandbox.
 */
export interface IDMapping__Output {
  /**
   * HostId is the id on the host.
   */
  'hostId': (number);
  /**
   * ContainerId is the id in the container.
   */
  'containerId': (number);
  /**
   * Length is the size of the range to map.
   */
  'length': (number);
}
