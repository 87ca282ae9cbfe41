// Original file: /work/main/proto/api.proto


/**
 * Device specifies a host device to mount into a container.
 */
export interface Device {
  /**
   * Path of the device within the container.
   */
  'containerPath'?: (string);
  /**
   * Path of the device on the host.
   */
  'hostPath'?: (string);
  /**
   * Cgroups permissions of the device, candidates are one or more of
   * * r - allows container to read from the specified device.
   * * w - allows container to write to the specified device.
   * * m - allows container to create device files that do not yet exist.
   */
  'permissions'?: (string);
}

/**
 * Device specifies a host device to mount into a container.
 */
export interface Device__Output {
  /**
   * Path of the device within the container.
   */
  'containerPath': (string);
  /**
   * Path of the device on the host.
   */
  'hostPath': (string);
  /**
   * Cgroups permissions of the device, candidates are one or more of
   * * r - allows container to read from the specified device.
   * * w - allows container to write to the specified device.
   * * m - allows container to create device files that do not yet exist.
   */
  'permissions': (string);
}
