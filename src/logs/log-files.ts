// LogFiles: what the log reader needs of the file system, as a seam (test/fakes/log-files.ts is its
// fake, where a test appends, rotates and fires watch events by hand). NodeLogFiles is the real one.
//
// The reader tells a rotated file from the one it has open by inode: the kubelet's log rotation (and
// containerd's ReopenContainerLog) renames the live file aside and the runtime creates a new one at
// the same path, so the path's inode changes while the open handle keeps reading the old file.
import { open, stat, type FileHandle } from "node:fs/promises";
import { watch as fsWatch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";

export interface LogFile {
  /** The file's identity: its inode. */
  readonly id: number;
  /** Reads into buf from `position`; 0 at the end of the file. */
  read(buf: Uint8Array, position: number): Promise<number>;
  /** Its length now. */
  size(): Promise<number>;
  close(): Promise<void>;
}

export interface Closer {
  close(): void;
}

export interface LogFiles {
  /** Opens the file for reading; throws (ENOENT and the like) when it cannot. */
  open(path: string): Promise<LogFile>;
  /** The identity (inode) of the file now at `path`, or undefined when there is none. */
  idOf(path: string): Promise<number | undefined>;
  /**
   * Calls onChange (at any time, any number of times) when the file at `path` may have changed:
   * written, replaced, removed. Spurious calls are fine; missed ones are covered by the reader's
   * periodic check.
   */
  watch(path: string, onChange: () => void): Closer;
}

class NodeLogFile implements LogFile {
  constructor(
    private readonly fh: FileHandle,
    readonly id: number,
  ) {}
  async read(buf: Uint8Array, position: number): Promise<number> {
    return (await this.fh.read(buf, 0, buf.byteLength, position)).bytesRead;
  }
  async size(): Promise<number> {
    return (await this.fh.stat()).size;
  }
  close(): Promise<void> {
    return this.fh.close();
  }
}

export class NodeLogFiles implements LogFiles {
  async open(path: string): Promise<LogFile> {
    const fh = await open(path, "r");
    try {
      return new NodeLogFile(fh, (await fh.stat()).ino);
    } catch (err) {
      await fh.close();
      throw err;
    }
  }
  async idOf(path: string): Promise<number | undefined> {
    try {
      return (await stat(path)).ino;
    } catch {
      return undefined;
    }
  }
  /**
   * Watches the file's directory (inotify), not the file: a watch on the file follows its inode, so it
   * would go quiet when the file is rotated, while the directory reports writes to the new file too.
   */
  watch(path: string, onChange: () => void): Closer {
    let w: FSWatcher | undefined;
    try {
      w = fsWatch(dirname(path), { persistent: false }, () => onChange());
      // A watch that fails later (the directory removed with the pod) leaves the periodic check.
      w.on("error", () => w?.close());
    } catch {
      w = undefined;
    }
    return { close: () => w?.close() };
  }
}
