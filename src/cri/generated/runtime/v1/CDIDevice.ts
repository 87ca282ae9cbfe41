// Original file: /work/main/proto/api.proto


/**
 * CDIDevice specifies a CDI device information.
 */
export interface CDIDevice {
  /**
   * Fully qualified CDI device name
   * for example: vendor.com/gpu=gpudevice1
   * see more details in the CDI specification:
   * https://github.com/container-orchestrated-devices/container-device-interface/blob/main/SPEC.md
   */
  'name'?: (string);
}

/**
 * CDIDevice specifies a CDI device information.
 */
export interface CDIDevice__Output {
  /**
   * Fully qualified CDI device name
   * for example: vendor.com/gpu=gpudevice1
   * see more details in the CDI specification:
   * https://github.com/container-orchestrated-devices/container-device-interface/blob/main/SPEC.md
   */
  'name': (string);
}
