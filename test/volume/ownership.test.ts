// fsGroup ownership (src/volume/ownership.ts) and where the plugins apply it: inside the atomic write
// before the new version is visible and only when one is written; an emptyDir once, when it is made;
// OnRootMismatch's shortcut in the port; the projected token's fsUser.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { AtomicWriter, DATA_DIR_NAME } from "../../src/volume/atomic-writer";
import { requiresPermissionChange, setVolumeOwnership } from "../../src/volume/ownership";
import { fsUserFrom, projectedPayload } from "../../src/volume/projected";
import { setUpVolume, type VolumeHost } from "../../src/volume/set-up";
import { FakeMounter } from "../fakes/mounter";
import { FakeObjectSource } from "../fakes/object-source";

const UID = "3c2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f";
let root: string;
let clock: FakeClock;
let objects: FakeObjectSource;
let host: VolumeHost;
const warnings: { msg: string; fields: unknown }[] = [];

const mode = (p: string) => statSync(p).mode & 0o7777;
const lmode = (p: string) => lstatSync(p).mode & 0o7777;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "volume-ownership-"));
  clock = new FakeClock(Date.UTC(2026, 0, 1));
  objects = new FakeObjectSource(clock);
  objects.setConfigMap({ metadata: { namespace: "prod", name: "cfg" }, data: { "data-1": "value-1" } });
  warnings.length = 0;
  host = {
    podsDir: join(root, "pods"),
    objects,
    mounter: new FakeMounter(),
    clock,
    log: { warn: (msg, fields) => warnings.push({ msg, fields }) },
  };
  mkdirSync(host.podsDir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const pod = (volumes: Volume[], securityContext: NonNullable<Pod["spec"]>["securityContext"] = { fsGroup: 1001 }): Pod => ({
  metadata: { name: "web", namespace: "prod", uid: UID },
  spec: { securityContext, containers: [{ name: "app" }], volumes },
});

/** A small volume: root 0777, a file 0400 in a sub-directory 0755, a link to it. */
function tree(): string {
  const dir = join(root, "vol");
  mkdirSync(join(dir, "sub"), { recursive: true });
  chmodSync(dir, 0o777);
  chmodSync(join(dir, "sub"), 0o755);
  writeFileSync(join(dir, "sub", "f"), "x");
  chmodSync(join(dir, "sub", "f"), 0o400);
  symlinkSync("sub/f", join(dir, "link"));
  return dir;
}

test("every path gets the group; read-only volumes |0440, read-write |0660, directories setgid and |0110, links not chmodded", () => {
  const dir = tree();
  expect(setVolumeOwnership(dir, 1001, { readOnly: true })).toBe(true);
  for (const p of [dir, join(dir, "sub"), join(dir, "sub", "f")]) expect(statSync(p).gid).toBe(1001);
  expect(lstatSync(join(dir, "link")).gid).toBe(1001);
  expect(mode(join(dir, "sub", "f"))).toBe(0o440);
  expect(mode(join(dir, "sub"))).toBe(0o2755);
  expect(mode(dir)).toBe(0o2777);
  expect(lmode(join(dir, "link"))).toBe(0o777);
  const rw = join(root, "rw");
  mkdirSync(rw);
  writeFileSync(join(rw, "f"), "x", { mode: 0o600 });
  chmodSync(join(rw, "f"), 0o600);
  setVolumeOwnership(rw, 7, { readOnly: false });
  expect(mode(join(rw, "f"))).toBe(0o660);
  // No fsGroup: nothing changes.
  expect(setVolumeOwnership(rw, undefined, { readOnly: false })).toBe(false);
});

test("a path whose lchown fails is logged and the walk goes on (the kubelet's changeFilePermission)", () => {
  const dir = tree();
  // A gid lchown refuses: every path is logged, and the modes are still OR-ed in.
  expect(setVolumeOwnership(dir, 2 ** 32, { readOnly: true, log: { warn: (msg, fields) => warnings.push({ msg, fields }) } })).toBe(true);
  expect(warnings.filter((w) => w.msg.startsWith("lchown"))).toHaveLength(4);
  expect(mode(join(dir, "sub", "f"))).toBe(0o440);
  // A path that cannot be listed stops the walk with the error.
  expect(() => setVolumeOwnership(join(root, "missing"), 1001, { readOnly: true })).toThrow("ENOENT");
});

test("OnRootMismatch skips the walk when the root already has the group, the mask and setgid; anything else walks", () => {
  const dir = tree();
  expect(requiresPermissionChange(dir, 1001, true)).toBe(true);
  setVolumeOwnership(dir, 1001, { readOnly: true });
  expect(requiresPermissionChange(dir, 1001, true)).toBe(false);
  // A file below that lost its group: OnRootMismatch does not see it, Always (or no policy) does.
  chownSync(join(dir, "sub", "f"), 0, 0);
  expect(setVolumeOwnership(dir, 1001, { readOnly: true, policy: "OnRootMismatch" })).toBe(false);
  expect(statSync(join(dir, "sub", "f")).gid).toBe(0);
  expect(setVolumeOwnership(dir, 1001, { readOnly: true, policy: "Always" })).toBe(true);
  expect(statSync(join(dir, "sub", "f")).gid).toBe(1001);
  // The root without setgid, with another group, or short of the read-write mask: walked.
  chmodSync(dir, 0o777);
  expect(requiresPermissionChange(dir, 1001, true)).toBe(true);
  expect(setVolumeOwnership(dir, 1001, { readOnly: true, policy: "OnRootMismatch" })).toBe(true);
  expect(requiresPermissionChange(dir, 1002, true)).toBe(true);
  chmodSync(dir, 0o2750);
  expect(requiresPermissionChange(dir, 1001, true)).toBe(false);
  expect(requiresPermissionChange(dir, 1001, false)).toBe(true);
  // A file as the root is always walked.
  expect(requiresPermissionChange(join(dir, "sub", "f"), 1001, true)).toBe(true);
});

test("the atomic writer runs setPerms after writing the new version and before swapping it in, only when it writes", async () => {
  const dir = join(root, "aw");
  mkdirSync(dir);
  const writer = new AtomicWriter(dir, clock, () => 1);
  const seen: string[] = [];
  const file = (s: string) => ({ data: new TextEncoder().encode(s), mode: 0o400 });
  writer.write(new Map([["k", file("v1")]]), () => seen.push(`first: ..data=${lstatSafe(join(dir, DATA_DIR_NAME))}`));
  expect(seen).toEqual(["first: ..data=none"]);
  const before = readlinkSync(join(dir, DATA_DIR_NAME));
  expect(writer.write(new Map([["k", file("v1")]]), () => seen.push("unchanged"))).toBe(false);
  expect(seen).toHaveLength(1);
  await clock.advance(1000);
  writer.write(new Map([["k", file("v2")]]), () => seen.push(`second: ..data=${readlinkSync(join(dir, DATA_DIR_NAME))}`));
  expect(seen[1]).toBe(`second: ..data=${before}`);
  // setPerms failing: the new version is removed, the old one stays.
  await clock.advance(1000);
  const current = readlinkSync(join(dir, DATA_DIR_NAME));
  expect(() =>
    writer.write(new Map([["k", file("v3")]]), () => {
      throw new Error("no");
    }),
  ).toThrow("no");
  expect(readlinkSync(join(dir, DATA_DIR_NAME))).toBe(current);
});

function lstatSafe(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return "none";
  }
}

test("configMap with fsGroup and defaultMode 0440: the file is 0440 group 1001; ownership is redone only when content changes", async () => {
  const p = pod([{ name: "cm", configMap: { name: "cfg", defaultMode: 0o440 } }]);
  const dir = await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(mode(join(dir, "data-1"))).toBe(0o440);
  expect(statSync(join(dir, "data-1")).gid).toBe(1001);
  expect(mode(dir)).toBe(0o2777);
  // A sync with nothing new does not walk the volume again.
  chownSync(dir, 0, 0);
  await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(statSync(dir).gid).toBe(0);
  // New content: written, then the whole volume (root included) is walked before the swap.
  await clock.advance(1000);
  objects.setConfigMap({ metadata: { namespace: "prod", name: "cfg" }, data: { "data-1": "value-2" } });
  await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(statSync(dir).gid).toBe(1001);
  expect(statSync(join(dir, "data-1")).gid).toBe(1001);
});

test("emptyDir: fsGroup applied when it is made (setgid 2777, group 1001), not to what containers write later", async () => {
  const p = pod([
    { name: "disk", emptyDir: {} },
    { name: "ram", emptyDir: { medium: "Memory" } },
  ]);
  const disk = await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(mode(disk)).toBe(0o2777);
  expect(statSync(disk).gid).toBe(1001);
  const ram = await setUpVolume(p, p.spec!.volumes![1]!, host);
  expect(statSync(ram).gid).toBe(1001);
  expect(mode(ram) & 0o2000).toBe(0o2000);
  // What a container wrote with its own group and mode stays so on the next syncs.
  writeFileSync(join(disk, "mine"), "x");
  chmodSync(join(disk, "mine"), 0o600);
  chownSync(join(disk, "mine"), 0, 0);
  await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(mode(join(disk, "mine"))).toBe(0o600);
  expect(statSync(join(disk, "mine")).gid).toBe(0);
  // Without fsGroup: 0777, no setgid.
  const plain = { ...pod([{ name: "disk", emptyDir: {} }], {}), metadata: { name: "plain", namespace: "prod", uid: "4c2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f" } };
  expect(mode(await setUpVolume(plain, plain.spec!.volumes![0]!, host))).toBe(0o777);
});

test("projected token: fsUser is the one runAsUser of every container; the file is 0600 and owned by it", async () => {
  const base = pod([], { runAsUser: 1000 });
  expect(fsUserFrom(base)).toBe(1000);
  expect(fsUserFrom({ ...base, spec: { ...base.spec!, containers: [{ name: "a" }, { name: "b", securityContext: { runAsUser: 2000 } }] } })).toBeUndefined();
  expect(fsUserFrom({ ...base, spec: { ...base.spec!, securityContext: {}, containers: [{ name: "a", securityContext: { runAsUser: 3 } }] } })).toBe(3);
  expect(fsUserFrom(pod([], {}))).toBeUndefined();
  const src = { defaultMode: 0o644, sources: [{ serviceAccountToken: { path: "token" } }] };
  const payload = await projectedPayload(base, src, objects);
  expect(payload.get("token")).toMatchObject({ mode: 0o600, fsUser: 1000 });
  expect((await projectedPayload(pod([], {}), src, objects)).get("token")).toMatchObject({ mode: 0o644 });
  expect((await projectedPayload(pod([], {}), src, objects)).get("token")!.fsUser).toBeUndefined();
  const p = pod([{ name: "tok", projected: src }], { runAsUser: 1000 });
  const dir = await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(statSync(join(dir, "token")).uid).toBe(1000);
  expect(lstatSync(join(dir, "token")).uid).toBe(1000);
  expect(mode(join(dir, "token"))).toBe(0o600);
});
