// A fake Mounter (src/volume/mount.ts) for tests that must not touch the host's mount table: it
// records tmpfs mounts in memory (mount point → size) and answers mountsUnder from them; a test can
// make the next mount or unmount fail.
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { MountError, type MountInfo, type Mounter } from "../../src/volume/mount";

export class FakeMounter implements Mounter {
  /** Mount points in mount order, with their size option. */
  readonly mounts: { mountPoint: string; sizeBytes: number | undefined }[] = [];
  readonly calls: string[] = [];
  failMount: string | undefined;
  failUnmount: string | undefined;
  private nextId = 1000;

  private canonical(dir: string): string {
    const abs = resolve(dir);
    return existsSync(abs) ? realpathSync(abs) : abs;
  }

  async mountTmpfs(dir: string, sizeBytes?: number): Promise<void> {
    this.calls.push(`mount ${dir}${sizeBytes === undefined ? "" : ` size=${sizeBytes}`}`);
    if (this.failMount !== undefined) throw new MountError(this.failMount);
    this.mounts.push({ mountPoint: this.canonical(dir), sizeBytes });
  }

  async unmount(dir: string): Promise<void> {
    this.calls.push(`umount ${dir}`);
    if (this.failUnmount !== undefined) throw new MountError(this.failUnmount);
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
