// The host's mount table as the volume manager needs it (find the mounts below a pod's volumes
// folder, unmount them): a view of a Mounter (src/volume/mount.ts, /proc/self/mountinfo and umount),
// so the mount table is read and changed in one place.
import { SystemMounter, type Mounter } from "./mount";
import type { MountTable } from "./types";

export class ProcMountTable implements MountTable {
  constructor(private readonly mounter: Mounter = new SystemMounter()) {}

  /** The mount points at `dir` or below, in unmounting order (the last mounted first). */
  mountPointsUnder(dir: string): string[] {
    return [...new Set(this.mounter.mountsUnder(dir).map((m) => m.mountPoint))];
  }

  unmount(path: string): Promise<void> {
    return this.mounter.unmount(path);
  }
}
