// Original file: /work/main/proto/api.proto


export interface ExecRequest {
  /**
   * ID of the container in which to execute the command.
   */
  'containerId'?: (string);
  /**
   * Command to execute.
   */
  'cmd'?: (string)[];
  /**
   * Whether to exec the command in a TTY.
   */
  'tty'?: (boolean);
  /**
   * Whether to stream stdin.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdin'?: (boolean);
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

export interface ExecRequest__Output {
  /**
   * ID of the container in which to execute the command.
   */
  'containerId': (string);
  /**
   * Command to execute.
   */
  'cmd': (string)[];
  /**
   * Whether to exec the command in a TTY.
   */
  'tty': (boolean);
  /**
   * Whether to stream stdin.
   * One of `stdin`, `stdout`, and `stderr` MUST be true.
   */
  'stdin': (boolean);
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
