import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PathEscapeError } from "../../src/util/confined-path";
import {
  isTmpfsMountPoint,
  MountError,
  mountsUnder,
  parseMountInfo,
  readMountInfo,
  SystemMounter,
  unescapeMountPath,
  unmountAndRemove,
} from "../../src/volume/mount";
import { FakeMounter } from "../fakes/mounter";

const mounter = new SystemMounter();
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "volume-mount-"));
});
afterEach(async () => {
  // Whatever a failing test left mounted is unmounted before its folder goes.
  for (const m of mountsUnder(root)) await mounter.unmount(m.mountPoint).catch(() => undefined);
  expect(mountsUnder(root)).toEqual([]);
  rmSync(root, { recursive: true, force: true });
});

test("mountinfo lines are parsed, optional fields skipped and octal escapes decoded", () => {
  const text = [
    "36 35 98:0 /mnt1 /mnt/parent\\040dir/a\\011b rw,noatime master:1 shared:7 - ext3 /dev/root rw,errors=continue",
    "63 27 0:51 / /tmp/x\\134y rw,relatime - tmpfs tmpfs rw,size=1024k",
    "garbage line",
    "",
  ].join("\n");
  const [a, b, ...rest] = parseMountInfo(text);
  expect(rest).toEqual([]);
  expect(a).toEqual({
    id: 36,
    parentId: 35,
    device: "98:0",
    root: "/mnt1",
    mountPoint: "/mnt/parent dir/a\tb",
    options: ["rw", "noatime"],
    fsType: "ext3",
    source: "/dev/root",
    superOptions: ["rw", "errors=continue"],
  });
  expect(b!.mountPoint).toBe("/tmp/x\\y");
  expect(b!.superOptions).toEqual(["rw", "size=1024k"]);
  expect(unescapeMountPath("a\\012b")).toBe("a\nb");
});

test("mountsUnder matches the directory and below, not a sibling sharing its prefix, last mounted first", () => {
  const infos = parseMountInfo(
    ["1 0 0:1 / /pods/u1 rw - tmpfs tmpfs rw", "2 1 0:2 / /pods/u1/v rw - tmpfs tmpfs rw", "3 0 0:3 / /pods/u10 rw - tmpfs tmpfs rw"].join("\n"),
  );
  expect(mountsUnder("/pods/u1", infos).map((m) => m.mountPoint)).toEqual(["/pods/u1/v", "/pods/u1"]);
});

test("a real tmpfs: mounted with its size, written, listed through mountinfo, unmounted, nothing left", async () => {
  const dir = join(root, "with space", "vol");
  mkdirSync(dir, { recursive: true });
  await mounter.mountTmpfs(dir, 4 * 1024 * 1024);
  expect(isTmpfsMountPoint(mounter, dir)).toBe(true);
  const [m] = mountsUnder(root);
  expect(m!.mountPoint).toBe(dir);
  expect(m!.fsType).toBe("tmpfs");
  expect(m!.superOptions).toContain("size=4096k");
  writeFileSync(join(dir, "secret"), "on tmpfs");
  expect(readMountInfo().some((x) => x.mountPoint === dir)).toBe(true);
  await mounter.unmount(dir);
  expect(mountsUnder(root)).toEqual([]);
  // The file lived on the tmpfs only.
  expect(readdirSync(dir)).toEqual([]);
  await expect(mounter.unmount(dir)).rejects.toBeInstanceOf(MountError);
});

test("unmountAndRemove unmounts every mount below (stacked and nested) then removes the folder", async () => {
  const pod = join(root, "pods", "u1");
  const a = join(pod, "volumes", "kubernetes.io~secret", "a");
  mkdirSync(a, { recursive: true });
  await mounter.mountTmpfs(a);
  await mounter.mountTmpfs(a);
  mkdirSync(join(a, "nested"));
  await mounter.mountTmpfs(join(a, "nested"));
  writeFileSync(join(a, "nested", "f"), "x");
  expect(mountsUnder(pod)).toHaveLength(3);
  await unmountAndRemove(join(root, "pods"), pod, mounter);
  expect(mountsUnder(root)).toEqual([]);
  expect(existsSync(pod)).toBe(false);
  expect(existsSync(join(root, "pods"))).toBe(true);
});

test("unmountAndRemove refuses a folder outside its root, or reached through a link out of it, and touches nothing", async () => {
  const pods = join(root, "pods");
  const outside = join(root, "outside");
  mkdirSync(pods);
  mkdirSync(outside);
  writeFileSync(join(outside, "keep"), "x");
  const fake = new FakeMounter();
  await expect(unmountAndRemove(pods, outside, fake)).rejects.toBeInstanceOf(PathEscapeError);
  await expect(unmountAndRemove(pods, pods, fake)).rejects.toBeInstanceOf(PathEscapeError);
  symlinkSync(outside, join(pods, "link"));
  await expect(unmountAndRemove(pods, join(pods, "link", "keep"), fake)).rejects.toBeInstanceOf(PathEscapeError);
  expect(existsSync(join(outside, "keep"))).toBe(true);
  expect(fake.calls).toEqual([]);
});

test("unmountAndRemove removes nothing when an unmount fails", async () => {
  const pods = join(root, "pods");
  const vol = join(pods, "u1", "volumes", "v");
  mkdirSync(vol, { recursive: true });
  writeFileSync(join(vol, "f"), "x");
  const fake = new FakeMounter();
  await fake.mountTmpfs(vol);
  fake.failUnmount = "umount: target is busy.";
  await expect(unmountAndRemove(pods, join(pods, "u1"), fake)).rejects.toThrow("target is busy");
  expect(existsSync(join(vol, "f"))).toBe(true);
  fake.failUnmount = undefined;
  await unmountAndRemove(pods, join(pods, "u1"), fake);
  expect(existsSync(join(pods, "u1"))).toBe(false);
  expect(fake.calls).toEqual([`mount ${vol}`, `umount ${vol}`, `umount ${vol}`]);
});
