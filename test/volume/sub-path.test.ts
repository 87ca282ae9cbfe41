// A subPath that is not there yet (src/volume/sub-path.ts): made with the volume root's mode, setgid and
// sticky included, never outside the volume; through the VolumeManager's mountSource, the kubelet's
// message when it cannot be made.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { PathEscapeError } from "../../src/util/confined-path";
import { nodeVolumePlugins } from "../../src/volume/plugins";
import { safeMakeSubPath, SubPathDirError } from "../../src/volume/sub-path";
import { VolumeManager } from "../../src/volume/volume-manager";
import { FakeMounter } from "../fakes/mounter";
import { FakeObjectSource } from "../fakes/object-source";
import { linesLog } from "../fakes/recording-log";
import { FakeMountTable } from "../fakes/volumes";

const base = mkdtempSync(join(tmpdir(), "nodeagent-sub-path-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/** A volume root as an emptyDir with an fsGroup leaves it: 2777 (or 3777 on tmpfs), group 123. */
function volume(perm: number): string {
  const dir = join(base, `vol-${++n}`);
  mkdirSync(dir);
  chownSync(dir, 0, 123);
  chmodSync(dir, perm);
  return dir;
}

const mode = (p: string) => statSync(p).mode & 0o7777;

test("each missing directory gets the root's mode whatever the umask (setgid, sticky) and the root's group", () => {
  const root = volume(0o3777);
  const made = safeMakeSubPath(root, ["test-sub", "deeper"]);
  expect(made).toBe(join(root, "test-sub", "deeper"));
  for (const p of [join(root, "test-sub"), made]) {
    expect(mode(p)).toBe(0o3777);
    expect(statSync(p).gid).toBe(123);
    expect(statSync(p).uid).toBe(0);
  }
  const plain = volume(0o755);
  expect(mode(safeMakeSubPath(plain, ["a"]))).toBe(0o755);
});

test("an existing directory is left as it is; a link inside the volume is followed, one leading out is refused", () => {
  const root = volume(0o2777);
  mkdirSync(join(root, "have"), { mode: 0o700 });
  chmodSync(join(root, "have"), 0o700);
  expect(safeMakeSubPath(root, ["have", "new"])).toBe(join(root, "have", "new"));
  expect(mode(join(root, "have"))).toBe(0o700);
  expect(mode(join(root, "have", "new"))).toBe(0o2777);
  symlinkSync("have", join(root, "inside"));
  expect(safeMakeSubPath(root, ["inside", "x"])).toBe(join(root, "have", "x"));
  const outside = join(base, `outside-${++n}`);
  mkdirSync(outside);
  symlinkSync(outside, join(root, "out"));
  expect(() => safeMakeSubPath(root, ["out", "x"])).toThrow(PathEscapeError);
  expect(() => safeMakeSubPath(root, ["..", "x"])).toThrow(PathEscapeError);
  writeFileSync(join(root, "file"), "x");
  expect(() => safeMakeSubPath(root, ["file", "x"])).toThrow("ENOTDIR");
});

test("mountSource makes a missing subPath of an emptyDir with the fsGroup's mode; one it cannot make is the kubelet's message", async () => {
  const podsDir = join(base, `pods-${++n}`);
  mkdirSync(podsDir);
  const clock = new FakeClock();
  const objects = new FakeObjectSource();
  const { log, lines } = linesLog();
  const vm = new VolumeManager({
    podsDir,
    plugins: nodeVolumePlugins({ podsDir, objects, mounter: new FakeMounter(), clock }),
    objects,
    mounts: new FakeMountTable(),
    clock,
    log,
  });
  const pod: Pod = {
    metadata: { name: "web", namespace: "default", uid: "uid-sub" },
    spec: { securityContext: { fsGroup: 123 }, containers: [{ name: "app", image: "busybox" }], volumes: [{ name: "work", emptyDir: {} }] },
  };
  await vm.waitForAttachAndMount(pod);
  const root = vm.hostPath(pod, "work")!;
  const sub = vm.mountSource(pod, "work", "test-sub", "app")!;
  expect(sub).toBe(join(root, "test-sub"));
  expect(mode(sub)).toBe(0o2777);
  expect(statSync(sub).gid).toBe(123);
  writeFileSync(join(root, "file"), "x");
  expect(() => vm.mountSource(pod, "work", "file/x", "app")).toThrow(SubPathDirError);
  expect(() => vm.mountSource(pod, "work", "file/x", "app")).toThrow('failed to create subPath directory for volumeMount "work" of container "app"');
  expect(lines.some((l) => l.includes("failed to create subPath directory"))).toBe(true);
});
