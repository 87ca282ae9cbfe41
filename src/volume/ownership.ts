// fsGroup ownership of a volume (k/k@1.24.1 pkg/volume/volume_linux.go SetVolumeOwnership), applied
// by the kubelet after every SetUp of a volume whose plugin supports ownership management (configMap,
// secret, downwardAPI, projected, emptyDir; never hostPath) when the pod has
// securityContext.fsGroup. Every path of the volume, its root included, gets group fsGroup (lchown,
// the owner kept), and everything but a symbolic link gets its mode OR-ed with a mask: 0440 for a
// volume containers mount read-only (configMap, secret, downwardAPI, projected), 0660 for a
// read-write one (emptyDir), directories also setgid and 0110. So `defaultMode: 0400` with an fsGroup
// ends up 0440 owned by the group, and a projected token written 0600 ends up 0640.
// Links are not chmodded: chmod would follow them and override the mode the plugin wrote.
import { chmodSync, lchownSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** One path's group and mode (changeFilePermission). */
function changeFilePermission(path: string, fsGroup: number, readOnly: boolean): void {
  const st = lstatSync(path);
  lchownSync(path, -1, fsGroup);
  if (st.isSymbolicLink()) return;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (st.isDirectory()) mask |= SETGID | EXEC_MASK;
  chmodSync(path, (st.mode & 0o7777) | mask);
}

/**
 * Applies fsGroup to `dir` and everything below it (links not followed). No fsGroup, no change.
 * `readOnly` is the plugin's GetAttributes().ReadOnly (mustMountReadOnly).
 */
export function setVolumeOwnership(dir: string, fsGroup: number | undefined, readOnly: boolean): void {
  if (fsGroup === undefined) return;
  const walk = (path: string): void => {
    changeFilePermission(path, fsGroup, readOnly);
    if (!lstatSync(path).isDirectory()) return;
    for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(dir);
}
