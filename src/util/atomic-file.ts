// Writing a small state file so that a crash leaves either the old content or the new, never half,
// and so that nobody but its owner reads it: state files hold pod specs (env values, the pushed pods
// of a root-equivalent token), so they are 0600, as the kubelet's checkpoints end up (its FileStore,
// pkg/kubelet/util/store/filestore.go, writes a temporary file, which os.CreateTemp makes 0600,
// syncs it and renames it into place).
import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** The mode of every state file unless a caller says otherwise: owner read and write only. */
export const STATE_FILE_MODE = 0o600;

/**
 * Writes `data` to `path` through a temporary file that is fsynced and renamed over it. The file ends
 * up with exactly `mode` (default 0600) whatever the umask, whatever the mode of the file it replaces
 * (rename brings the new inode's mode along) and of a temporary file left by a crash (removed first,
 * then created exclusively, so a symlink planted in its place is not followed).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode: number = STATE_FILE_MODE): void {
  const tmp = `${path}.tmp`;
  mkdirSync(dirname(path), { recursive: true });
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, "wx", mode);
  try {
    // open's mode is filtered through the umask; fchmod is not.
    fchmodSync(fd, mode);
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
