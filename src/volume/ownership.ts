// fsGroup ownership of a volume, the port of the kubelet's VolumeOwnership (1.36
// pkg/volume/volume_linux.go), applied when the pod has securityContext.fsGroup by the plugins that
// manage ownership: configMap, secret, downwardAPI and projected (inside the atomic write, before the
// new version is swapped in, so a container never sees a file of the new version without its group),
// emptyDir (once, when it is first made); never hostPath.
//
// Every path of the volume, its root included and visited last (the kubelet's walkDeep: children
// before their directory), gets group fsGroup (lchown, the owner kept), and everything but a symbolic
// link gets its mode OR-ed with a mask: 0440 for a volume containers mount read-only (configMap,
// secret, downwardAPI, projected), 0660 for a read-write one (emptyDir), directories also setgid and
// 0110. So `defaultMode: 0400` with an fsGroup ends up 0440 owned by the group, and a projected token
// written 0600 ends up 0640. Links are not chmodded: chmod would follow them and override the mode
// the plugin wrote. A path whose lchown or chmod fails is logged and the walk goes on, as the
// kubelet's changeFilePermission; a path the walk cannot read (lstat, readdir) stops it with the error.
//
// fsGroupChangePolicy OnRootMismatch skips the walk when the root already has the group, the mask's
// bits, x for the group and setgid (requiresPermissionChange); anything else walks (Always). The
// kubelet passes the pod's policy only to the plugins of persistent volumes (CSI, local, iSCSI, FC,
// flex); configMap, secret, downwardAPI, projected and emptyDir get none, so for every volume the
// agent makes the walk always runs — the API's own doc of the field says it has no effect on them.
import { chmodSync, lchownSync, lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { errorCode, type Logger } from "../util";

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** The values of securityContext.fsGroupChangePolicy; undefined is Always. */
export type FsGroupChangePolicy = "Always" | "OnRootMismatch";

export interface VolumeOwnershipOptions {
  /** The plugin's GetAttributes().ReadOnly (mustMountReadOnly): the 0440 mask instead of 0660. */
  readOnly: boolean;
  /** Only persistent-volume plugins pass one in the kubelet; none here means Always. */
  policy?: FsGroupChangePolicy | string;
  /** Where a path's failed lchown/chmod is told (the walk goes on). */
  log?: Pick<Logger, "warn">;
}

/** One path's group and mode (changeFilePermission); failures are logged, not thrown. */
function changeFilePermission(path: string, st: Stats, fsGroup: number, o: VolumeOwnershipOptions): void {
  try {
    lchownSync(path, -1, fsGroup);
  } catch (err) {
    o.log?.warn("lchown of a volume path to the pod's fsGroup failed", { path, fsGroup, err });
  }
  if (st.isSymbolicLink()) return;
  let mask = o.readOnly ? RO_MASK : RW_MASK;
  if (st.isDirectory()) mask |= SETGID | EXEC_MASK;
  try {
    chmodSync(path, (st.mode & 0o7777) | mask);
  } catch (err) {
    o.log?.warn("chmod of a volume path for the pod's fsGroup failed", { path, err });
  }
}

/**
 * Whether the root of a volume is not yet what the walk would make it (requiresPermissionChange):
 * another group, not a directory, missing a bit of the mask (with 0110) or setgid. A root that cannot
 * be read is walked.
 */
export function requiresPermissionChange(dir: string, fsGroup: number, readOnly: boolean): boolean {
  let st: Stats;
  try {
    st = statSync(dir);
  } catch {
    return true;
  }
  if (st.gid !== fsGroup) return true;
  if (!st.isDirectory()) return true;
  const want = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (st.mode & want) !== want || (st.mode & SETGID) === 0;
}

/** skipPermissionChange: only OnRootMismatch with a root that already matches skips the walk. */
export function skipPermissionChange(dir: string, fsGroup: number, o: VolumeOwnershipOptions): boolean {
  if (o.policy !== "OnRootMismatch") return false;
  return !requiresPermissionChange(dir, fsGroup, o.readOnly);
}

/**
 * Applies fsGroup to `dir` and everything below it (links not followed, the root last). No fsGroup, no
 * change. Returns whether it walked (false: no fsGroup, or OnRootMismatch found the root matching).
 * @throws the file system's error of a path the walk could not lstat or list
 */
export function setVolumeOwnership(dir: string, fsGroup: number | undefined, o: VolumeOwnershipOptions): boolean {
  if (fsGroup === undefined) return false;
  if (skipPermissionChange(dir, fsGroup, o)) return false;
  const walk = (path: string, st: Stats): void => {
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) {
        const child = join(path, name);
        let cst: Stats;
        try {
          cst = lstatSync(child);
        } catch (e) {
          // Gone between readdir and lstat (an atomic writer's old version): nothing left to change.
          if (errorCode(e) === "ENOENT") continue;
          throw e;
        }
        walk(child, cst);
      }
    }
    changeFilePermission(path, st, fsGroup, o);
  };
  walk(dir, lstatSync(dir));
  return true;
}
