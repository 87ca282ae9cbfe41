import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { linkSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WalkDiskUsage } from "../../src/stats/disk-usage";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "disk-usage-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What du counts for one path: st_blocks × 512. */
const blocks = (p: string) => lstatSync(p).blocks * 512;
const MI = 1024 * 1024;

describe("WalkDiskUsage (the kubelet's fs.DiskUsage)", () => {
  test("st_blocks × 512 of the folder and everything under it", async () => {
    const vol = join(root, "vol");
    mkdirSync(join(vol, "sub"), { recursive: true });
    writeFileSync(join(vol, "a"), Buffer.alloc(MI, 1));
    writeFileSync(join(vol, "sub", "b"), Buffer.alloc(MI, 2));
    const expected = blocks(vol) + blocks(join(vol, "sub")) + blocks(join(vol, "a")) + blocks(join(vol, "sub", "b"));
    expect(expected).toBeGreaterThanOrEqual(2 * MI);
    expect((await new WalkDiskUsage().usage(vol))?.bytes).toBe(expected);
  });

  test("a sparse file counts its allocated blocks, not its length", async () => {
    const vol = join(root, "vol");
    mkdirSync(vol);
    writeFileSync(join(vol, "sparse"), "");
    const { truncateSync } = await import("node:fs");
    truncateSync(join(vol, "sparse"), 100 * MI);
    expect((await new WalkDiskUsage().usage(vol))?.bytes).toBeLessThan(MI);
  });

  test("hard links are counted once; symlinks are not followed (a link to a big file outside counts as the link)", async () => {
    const vol = join(root, "vol");
    mkdirSync(vol);
    writeFileSync(join(vol, "a"), Buffer.alloc(MI, 1));
    linkSync(join(vol, "a"), join(vol, "a2"));
    linkSync(join(vol, "a"), join(vol, "a3"));
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "big"), Buffer.alloc(4 * MI, 3));
    symlinkSync(join(outside, "big"), join(vol, "to-file"));
    symlinkSync(outside, join(vol, "to-dir"));
    const expected = blocks(vol) + blocks(join(vol, "a")) + blocks(join(vol, "to-file")) + blocks(join(vol, "to-dir"));
    const used = (await new WalkDiskUsage().usage(vol))?.bytes;
    expect(used).toBe(expected);
    expect(used!).toBeLessThan(2 * MI);
  });

  test("a tree larger than one batch is walked in several turns of the event loop, to the same total", async () => {
    const vol = join(root, "vol");
    mkdirSync(vol);
    let expected = blocks(vol);
    for (let d = 0; d < 5; d++) {
      mkdirSync(join(vol, `d${d}`));
      expected += blocks(join(vol, `d${d}`));
      for (let f = 0; f < 40; f++) {
        writeFileSync(join(vol, `d${d}`, `f${f}`), "x".repeat(10));
        expected += blocks(join(vol, `d${d}`, `f${f}`));
      }
    }
    let turns = 0;
    let walking = true;
    const tick = () => {
      if (!walking) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const used = (await new WalkDiskUsage(16).usage(vol))?.bytes;
    walking = false;
    expect(used).toBe(expected);
    // 205 entries in batches of 16: the walk let other work run in between.
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  test("stopAbove ends the walk once the total is over it", async () => {
    const vol = join(root, "vol");
    mkdirSync(vol);
    for (let f = 0; f < 8; f++) writeFileSync(join(vol, `f${f}`), Buffer.alloc(MI, f));
    const full = (await new WalkDiskUsage().usage(vol))?.bytes;
    const partial = (await new WalkDiskUsage().usage(vol, { stopAbove: MI }))?.bytes;
    expect(full!).toBeGreaterThanOrEqual(8 * MI);
    expect(partial!).toBeGreaterThan(MI);
    expect(partial!).toBeLessThan(full!);
  });

  test("a folder that does not exist has no usage (undefined)", async () => {
    expect(await new WalkDiskUsage().usage(join(root, "nope"))).toBeUndefined();
  });
});

test("inodes: the folder and each entry once (a hard-linked file once)", async () => {
  const vol = join(root, "vol");
  mkdirSync(join(vol, "sub"), { recursive: true });
  writeFileSync(join(vol, "sub", "a"), "x");
  linkSync(join(vol, "sub", "a"), join(vol, "b"));
  symlinkSync("/usr", join(vol, "link"));
  // vol, sub, a (= b), link
  expect((await new WalkDiskUsage().usage(vol))?.inodes).toBe(4);
});
