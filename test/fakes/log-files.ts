// FakeLogFiles: the log reader's file system (src/logs LogFiles) in memory. A test appends to a file,
// rotates it (renamed aside, a new file at the path, as the kubelet's rotation and containerd's
// ReopenContainerLog do) and fires the watch events itself; it can count open handles and live
// watches, to see that a reader that ended left none behind.
import type { Closer, LogFile, LogFiles } from "../../src/logs/log-files";

interface FakeFile {
  id: number;
  data: Uint8Array;
}

export class FakeLogFiles implements LogFiles {
  private files = new Map<string, FakeFile>();
  private nextId = 1;
  private watches = new Set<() => void>();
  openHandles = 0;
  /** Watch events fire by themselves on every append and rotation unless a test turns this off. */
  autoNotify = true;

  /** Appends text (or bytes) to the file at path, creating it. */
  append(path: string, text: string | Uint8Array): void {
    const f = this.files.get(path) ?? this.create(path);
    const add = typeof text === "string" ? new TextEncoder().encode(text) : text;
    const data = new Uint8Array(f.data.length + add.length);
    data.set(f.data);
    data.set(add, f.data.length);
    f.data = data;
    if (this.autoNotify) this.notify();
  }

  /** A new empty file at path (another inode). */
  create(path: string): FakeFile {
    const f = { id: this.nextId++, data: new Uint8Array(0) };
    this.files.set(path, f);
    return f;
  }

  /** Renames the file at path to `to`; with `recreate`, a new empty file takes its place. */
  rotate(path: string, to: string, recreate = true): void {
    const f = this.files.get(path);
    if (!f) throw new Error(`no file ${path}`);
    this.files.delete(path);
    this.files.set(to, f);
    if (recreate) this.create(path);
    if (this.autoNotify) this.notify();
  }

  /** Fires every live watch. */
  notify(): void {
    for (const w of [...this.watches]) w();
  }

  get liveWatches(): number {
    return this.watches.size;
  }

  async open(path: string): Promise<LogFile> {
    const f = this.files.get(path);
    if (!f) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
    this.openHandles++;
    let closed = false;
    return {
      id: f.id,
      read: async (buf, position) => {
        if (closed) throw new Error("read on a closed file");
        const n = Math.max(0, Math.min(buf.byteLength, f.data.length - position));
        buf.set(f.data.subarray(position, position + n));
        return n;
      },
      size: async () => f.data.length,
      close: async () => {
        if (!closed) this.openHandles--;
        closed = true;
      },
    };
  }

  async idOf(path: string): Promise<number | undefined> {
    return this.files.get(path)?.id;
  }

  watch(_path: string, onChange: () => void): Closer {
    const w = () => onChange();
    this.watches.add(w);
    return { close: () => void this.watches.delete(w) };
  }
}
