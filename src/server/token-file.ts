// Reading --push-token-file, refused when others could read or replace it, as ssh refuses a private
// key with "UNPROTECTED PRIVATE KEY FILE" (sshkey_perm_ok: any group or other bit is too open) and a
// file owned by another user. The push token is root on this host (a pushed pod may be privileged,
// share the host's namespaces and mount / with hostPath), so a token file that another local user
// can read hands them the host, and one they can write lets them choose it.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { errorMessage } from "../util";

export class TokenFileError extends Error {
  override name = "TokenFileError";
}

/** The mode bits a token file may have: owner read and write (0600 or 0400). */
const GROUP_OTHER_BITS = 0o077;

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}

/**
 * Reads and checks the token file: a regular file, owned by root or by `uid` (the agent's own user),
 * with no permission bit for group or others, holding one token without whitespace inside. The checks
 * run on the opened file (fstat), so the file checked is the file read. Throws TokenFileError with the
 * fix to apply.
 */
export function readTokenFile(path: string, uid: number | undefined = process.getuid?.()): string {
  const flag = "--push-token-file";
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (err) {
    throw new TokenFileError(`${flag} ${path}: ${errorMessage(err)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new TokenFileError(`${flag} ${path}: not a regular file`);
    if (st.mode & GROUP_OTHER_BITS) {
      throw new TokenFileError(
        `${flag} ${path}: permissions ${octal(st.mode)} are too open: the push token is root on this host, ` +
          `so its file must be readable and writable by its owner only (chmod 600 ${path})`,
      );
    }
    if (st.uid !== 0 && st.uid !== uid) {
      throw new TokenFileError(
        `${flag} ${path}: owned by uid ${st.uid}; it must belong to root${uid !== undefined && uid !== 0 ? ` or to the agent's user (uid ${uid})` : ""} (chown root ${path})`,
      );
    }
    const token = readFileSync(fd, "utf8").trim();
    if (!token) throw new TokenFileError(`${flag} ${path} is empty`);
    // A bearer token is one word (RFC 6750 b64token); one with spaces inside could never be sent.
    if (/\s/.test(token)) throw new TokenFileError(`${flag} ${path}: the token contains whitespace; the file must hold one token`);
    return token;
  } finally {
    closeSync(fd);
  }
}
