// Original file: /work/main/proto/api.proto


export interface PortForwardRequest {
  /**
   * ID of the container to which to forward the port.
   */
  'podSandboxId'?: (string);
  /**
   * Port to forward.
   */
  'port'?: (number)[];
}

export interface PortForwardRequest__Output {
  /**
   * ID of the container to which to forward the port.
   */
  'podSandboxId': (string);
  /**
   * Port to forward.
   */
  'port': (number)[];
}
