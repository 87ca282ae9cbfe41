// Original file: /work/main/proto/api.proto


export interface AttachRequest {
  /**
   * ID of the container to which to attach.
   */
  'containerId'?: (string);
  /**
   * Whether to stream stdin.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdin'?: (boolean);
  /**
   * Whether the process being attached is running in a TTY.
   * This must match the TTY setting in the ContainerConfig.
   */
  'tty'?: (boolean);
  /**
   * Whether to stream stdout.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdout'?: (boolean);
  /**
   * Whether to stream stderr.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   * If `tty` is true, `stderr` MUST be false. Multiplexing is not supported
   * in this case. The output of stdout and stderr will be combined to a
   * single stream.
   */
  'stderr'?: (boolean);
}

export interface AttachRequest__Output {
  /**
   * ID of the container to which to attach.
   */
  'containerId': (string);
  /**
   * Whether to stream stdin.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdin': (boolean);
  /**
   * Whether the process being attached is running in a TTY.
   * This must match the TTY setting in the ContainerConfig.
   */
  'tty': (boolean);
  /**
   * Whether to stream stdout.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdout': (boolean);
  /**
   * Whether to stream stderr.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   * If `tty` is true, `stderr` MUST be false. Multiplexing is not supported
   * in this case. The output of stdout and stderr will be combined to a
   * single stream.
   */
  'stderr': (boolean);
}
