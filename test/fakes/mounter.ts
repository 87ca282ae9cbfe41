// A fake Mounter for tests that must not touch the host's mount table: src/volume's MemoryMounter (tmpfs
// mounts recorded in memory, mountsUnder answered from them) with every call recorded, and the next
// mount or unmount made to fail on demand.
import { MountError } from "../../src/volume/mount";
import { MemoryMounter } from "../../src/volume/memory-mounter";

export class FakeMounter extends MemoryMounter {
  readonly calls: string[] = [];
  failMount: string | undefined;
  failUnmount: string | undefined;

  override async mountTmpfs(dir: string, sizeBytes?: number): Promise<void> {
    this.calls.push(`mount ${dir}${sizeBytes === undefined ? "" : ` size=${sizeBytes}`}`);
    if (this.failMount !== undefined) throw new MountError(this.failMount);
    await super.mountTmpfs(dir, sizeBytes);
  }

  override async unmount(dir: string): Promise<void> {
    this.calls.push(`umount ${dir}`);
    if (this.failUnmount !== undefined) throw new MountError(this.failUnmount);
    await super.unmount(dir);
  }
}
