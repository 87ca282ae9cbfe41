// A volume mount's subPath that is not there yet, made by the agent before the runtime binds it, as the
// kubelet's makeMounts does with SafeMakeDir: left to the runtime, it would be made 0755 root:root, and
// a non-root container of a pod with an fsGroup could not write into it. Each missing directory gets
// the mode of the volume's root — permission bits, setgid, setuid and sticky — whatever the umask, so
// an emptyDir made with an fsGroup (2777, or 3777 on tmpfs) gives its subPath the same; the group comes
// from the root's setgid (new directories inherit it).
//
// Never outside the volume (CVE-2017-1002101): the path is built from checked segments, the existing
// part is resolved with its links and must stay inside the volume, and each directory made is opened
// without following a link (O_NOFOLLOW) and its real path checked again before its mode is set, so a
// container that swaps a directory it can write for a link between two steps gains nothing.
import { closeSync, constants, fchmodSync, fstatSync, mkdirSync, openSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { assertInside, confinedPath, errorCode, PathEscapeError } from "../util";

/** A subPath that could not be made; the message is the kubelet's (details stay in the cause). */
export class SubPathDirError extends Error {
  override name = "SubPathDirError";
}

/** The path of an open file descriptor, as the kernel resolved it. */
function fdPath(fd: number): string {
  return readlinkSync(`/proc/self/fd/${fd}`);
}

/**
 * Makes `segments` below the volume root `root` as directories with the root's mode (doSafeMakeDir);
 * an existing directory is left as it is. Returns the real path.
 * @throws PathEscapeError when a link leads out of the volume; the file system's error otherwise
 *   (ENOTDIR when a file is in the way)
 */
export function safeMakeSubPath(root: string, segments: readonly string[]): string {
  const realRoot = realpathSync(root);
  const target = confinedPath(realRoot, ...segments);
  // The mode of the volume's root (the kubelet's GetMode follows links: os.Stat).
  const perm = statSync(realRoot).mode & 0o7777;
  let current = realRoot;
  for (let i = 0; i < segments.length; i++) {
    const next = join(current, segments[i]!);
    let made = false;
    try {
      mkdirSync(next, perm & 0o777);
      made = true;
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e;
    }
    if (!made) {
      // Existing: follow it (a link inside the volume is fine) and check where it leads.
      const real = realpathSync(next);
      assertInside(realRoot, real);
      if (!statSync(real).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${target}'`), { code: "ENOTDIR" });
      current = real;
      continue;
    }
    const fd = openSync(next, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      const real = fdPath(fd);
      if (real !== realRoot && !real.startsWith(`${realRoot}/`)) throw new PathEscapeError(`${next} resolves to ${real}, which is not inside ${realRoot}`);
      if (!fstatSync(fd).isDirectory()) throw new PathEscapeError(`${next} is not the directory just made`);
      // mkdir's mode was narrowed by the umask and cannot carry setgid/sticky: set it explicitly.
      fchmodSync(fd, perm);
      current = real;
    } finally {
      closeSync(fd);
    }
  }
  return current;
}
