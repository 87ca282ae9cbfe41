// MemoryMounter: a mount table in memory (the Mounter of mount.ts) for nodes that must not touch the
// host's — the hollow nodes of `nodeagent hollow`, whose secret and projected volumes would otherwise be
// thousands of real tmpfs mounts, and unit tests through their subclass. A tmpfs "mount" is recorded
// (mount point → size) and the files are written to the directory itself; mountsUnder answers from
// the records, last mounted first, as /proc/self/mountinfo read backwards does.
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { MountError, type MountInfo, type Mounter } from "./mount";

export class MemoryMounter implements Mounter {
  /** Mount points in mount order, with their size option. */
  readonly mounts: { mountPoint: string; sizeBytes: number | undefined }[] = [];
  private nextId = 1000;

  private canonical(dir: string): string {
    const abs = resolve(dir);
    return existsSync(abs) ? realpathSync(abs) : abs;
  }

  async mountTmpfs(dir: string, sizeBytes?: number): Promise<void> {
    this.mounts.push({ mountPoint: this.canonical(dir), sizeBytes });
  }

  async unmount(dir: string): Promise<void> {
    const at = this.canonical(dir);
    const i = this.mounts.map((m) => m.mountPoint).lastIndexOf(at);
    if (i < 0) throw new MountError(`unmounting ${dir} failed: exit status 32: umount: ${dir}: not mounted.`);
    this.mounts.splice(i, 1);
  }

  mountsUnder(dir: string): MountInfo[] {
    const root = this.canonical(dir);
    return this.mounts
      .filter((m) => m.mountPoint === root || m.mountPoint.startsWith(`${root}/`))
      .map((m) => ({
        id: this.nextId++,
        parentId: 1,
        device: "0:99",
        root: "/",
        mountPoint: m.mountPoint,
        options: ["rw"],
        fsType: "tmpfs",
        source: "tmpfs",
        superOptions: m.sizeBytes === undefined ? ["rw"] : ["rw", `size=${m.sizeBytes}`],
      }))
      .reverse();
  }
}
