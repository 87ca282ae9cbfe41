// Original file: /work/main/proto/api.proto


/**
 * FilesystemIdentifier uniquely identify the filesystem.
 */
export interface FilesystemIdentifier {
  /**
   * Mountpoint of a filesystem.
   */
  'mountpoint'?: (string);
}

/**
 * FilesystemIdentifier uniquely identify the filesystem.
 */
export interface FilesystemIdentifier__Output {
  /**
   * Mountpoint of a filesystem.
   */
  'mountpoint': (string);
}
