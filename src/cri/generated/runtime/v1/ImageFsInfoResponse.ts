// Original file: /work/main/proto/api.proto

import type { FilesystemUsage as _runtime_v1_FilesystemUsage, FilesystemUsage__Output as _runtime_v1_FilesystemUsage__Output } from '../../runtime/v1/FilesystemUsage';

export interface ImageFsInfoResponse {
  /**
   * Information of image filesystem(s).
   */
  'imageFilesystems'?: (_runtime_v1_FilesystemUsage)[];
  /**
   * Information of container filesystem(s).
   * This is an optional field, may be used for example if container and image
   * storage are separated.
   * Default will be to return this as empty.
   */
  'containerFilesystems'?: (_runtime_v1_FilesystemUsage)[];
}

export interface ImageFsInfoResponse__Output {
  /**
   * Information of image filesystem(s).
   */
  'imageFilesystems': (_runtime_v1_FilesystemUsage__Output)[];
  /**
   * Information of container filesystem(s).
   * This is an optional field, may be used for example if container and image
   * storage are separated.
   * Default will be to return this as empty.
   */
  'containerFilesystems': (_runtime_v1_FilesystemUsage__Output)[];
}
