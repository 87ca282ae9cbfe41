// NodeLogFiles on real files: identities tell a rotated file from the new one, and the directory
// watch reports writes to the file at the path before and after a rotation.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeLogFiles } from "../../src/logs";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "log-files-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once `count()` grows past `from`, or rejects after 5 s. */
async function grows(count: () => number, from: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (count() <= from) {
    if (Date.now() > deadline) throw new Error("no watch event within 5 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("NodeLogFiles", () => {
  test("reads by position, reports the size, and a rotated file keeps its identity while the path gets another", async () => {
    const files = new NodeLogFiles();
    const path = join(dir, "0.log");
    writeFileSync(path, "hello\n");
    const f = await files.open(path);
    expect(await f.size()).toBe(6);
    const buf = new Uint8Array(3);
    expect(await f.read(buf, 2)).toBe(3);
    expect(new TextDecoder().decode(buf)).toBe("llo");
    expect(await files.idOf(path)).toBe(f.id);
    renameSync(path, `${path}.1`);
    expect(await files.idOf(path)).toBeUndefined();
    writeFileSync(path, "");
    expect(await files.idOf(path)).not.toBe(f.id);
    await f.close();
    await expect(files.open(join(dir, "missing.log"))).rejects.toThrow("ENOENT");
  });

  test("the watch sees writes to the file at the path, the rotation itself, and writes to the new file (a watch on the file's inode would miss these)", async () => {
    const files = new NodeLogFiles();
    const path = join(dir, "0.log");
    writeFileSync(path, "");
    let events = 0;
    const w = files.watch(path, () => events++);
    appendFileSync(path, "a\n");
    await grows(() => events, 0);
    let seen = events;
    renameSync(path, `${path}.1`);
    writeFileSync(path, "");
    await grows(() => events, seen);
    seen = events;
    appendFileSync(path, "b\n");
    await grows(() => events, seen);
    w.close();
  });
});
