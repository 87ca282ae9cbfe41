// Original file: /work/main/proto/api.proto


export interface ExecSyncResponse {
  /**
   * Captured command stdout output.
   * The runtime should cap the output of this response to 16MB.
   * If the stdout of the command produces more than 16MB, the remaining output
   * should be discarded, and the command should proceed with no error.
   * See CVE-2022-1708 and CVE-2022-31030 for more information.
   */
  'stdout'?: (Buffer | Uint8Array | string);
  /**
   * Captured command stderr output.
   * The runtime should cap the output of this response to 16MB.
   * If the stderr of the command produces more than 16MB, the remaining output
   * should be discarded, and the command should proceed with no error.
   * See CVE-2022-1708 and CVE-2022-31030 for more information.
   */
  'stderr'?: (Buffer | Uint8Array | string);
  /**
   * Exit code the command finished with. Default: 0 (success).
   */
  'exitCode'?: (number);
}

export interface ExecSyncResponse__Output {
  /**
   * Captured command stdout output.
   * The runtime should cap the output of this response to 16MB.
   * If the stdout of the command produces more than 16MB, the remaining output
   * should be discarded, and the command should proceed with no error.
   * See CVE-2022-1708 and CVE-2022-31030 for more information.
   */
  'stdout': (Buffer);
  /**
   * Captured command stderr output.
   * The runtime should cap the output of this response to 16MB.
   * If the stderr of the command produces more than 16MB, the remaining output
   * should be discarded, and the command should proceed with no error.
   * See CVE-2022-1708 and CVE-2022-31030 for more information.
   */
  'stderr': (Buffer);
  /**
   * Exit code the command finished with. Default: 0 (success).
   */
  'exitCode': (number);
}
