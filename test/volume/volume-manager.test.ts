// The VolumeManager against fake plugins, a fake object source and a fake mount table: the wait's
// messages and backoff, refreshes, subPath resolution, removal and the cleanup after a restart.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { PathEscapeError } from "../../src/util/confined-path";
import { createLogger } from "../../src/util/log";
import { nodeVolumePlugins } from "../../src/volume/plugins";
import { FakeMounter } from "../fakes/mounter";
import { VolumeMountError } from "../../src/volume/types";
import { MOUNT_RETRY_INITIAL_MS, MOUNT_RETRY_MAX_MS, VolumeManager } from "../../src/volume/volume-manager";
import { FakeObjectSource } from "../fakes/object-source";
import { FakeConfigMapPlugin, FakeMountTable } from "../fakes/volumes";
import { linesLog } from "../fakes/recording-log";

const base = mkdtempSync(join(tmpdir(), "nodeagent-volume-manager-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

function setup(log = createLogger("text", -999)) {
  const podsDir = join(base, `pods-${++n}`);
  mkdirSync(podsDir);
  const clock = new FakeClock();
  const objects = new FakeObjectSource();
  const cm = new FakeConfigMapPlugin(objects);
  const mounts = new FakeMountTable();
  const make = () =>
    new VolumeManager({ podsDir, plugins: [cm, ...nodeVolumePlugins({ podsDir, objects, mounter: new FakeMounter(), clock })], objects, mounts, clock, log });
  return { podsDir, clock, objects, cm, mounts, vm: make(), make };
}

function pod(volumes: Volume[], uid = "uid-1"): Pod {
  return { metadata: { name: "web", namespace: "default", uid }, spec: { containers: [{ name: "app", image: "busybox" }], volumes } };
}

const cfg: Volume = { name: "cfg", configMap: { name: "y" } };

async function mountError(p: Promise<unknown>): Promise<VolumeMountError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof VolumeMountError) return err;
    throw err;
  }
  throw new Error("expected a VolumeMountError");
}

describe("waitForAttachAndMount", () => {
  test("a pod without volumes returns at once, registered with the object source", async () => {
    const { vm, objects, cm } = setup();
    await vm.waitForAttachAndMount(pod([]));
    expect(objects.registered.has("uid-1")).toBe(true);
    expect(cm.setUps).toBe(0);
  });

  test("a missing configMap: the kubelet's FailedMount message, then retries with a doubling backoff, no sooner", async () => {
    const { vm, clock, cm } = setup();
    const p = pod([cfg, { name: "work", emptyDir: {} }]);
    const e = await mountError(vm.waitForAttachAndMount(p));
    expect(e.volume).toBe("cfg");
    expect(e.message).toBe(
      `Unable to attach or mount volumes: unmounted volumes=[cfg], unattached volumes=[cfg]: MountVolume.SetUp failed for volume "cfg" : configmap "y" not found`,
    );
    expect(e.retryAt).toBe(clock.now() + MOUNT_RETRY_INITIAL_MS);
    // The emptyDir was made meanwhile, the configMap volume was not.
    expect(vm.hostPath(p, "work")).toBeDefined();
    expect(vm.hostPath(p, "cfg")).toBeUndefined();
    // Within the backoff no new attempt is made: the same message, the same retry time.
    const again = await mountError(vm.waitForAttachAndMount(p));
    expect(again.retryAt).toBe(e.retryAt);
    await clock.advance(MOUNT_RETRY_INITIAL_MS);
    const third = await mountError(vm.waitForAttachAndMount(p));
    expect(third.retryAt).toBe(clock.now() + 2 * MOUNT_RETRY_INITIAL_MS);
    expect(cm.setUps).toBe(0);
  });

  test("the backoff stops at 2m2s", async () => {
    const { vm, clock } = setup();
    const p = pod([cfg]);
    for (let i = 0; i < 12; i++) {
      const e = await mountError(vm.waitForAttachAndMount(p));
      await clock.advance(e.retryAt! - clock.now());
    }
    const last = await mountError(vm.waitForAttachAndMount(p));
    expect(last.retryAt! - clock.now()).toBe(MOUNT_RETRY_MAX_MS);
  });

  test("the object appearing ends the backoff of the volumes that use it and names their pods", async () => {
    const { vm, objects } = setup();
    const p = pod([cfg]);
    const other = pod([{ name: "o", configMap: { name: "other" } }], "uid-2");
    await mountError(vm.waitForAttachAndMount(p));
    await mountError(vm.waitForAttachAndMount(other));
    objects.putConfigMap("default", "y", { key: "v1" });
    expect(vm.objectChanged({ kind: "ConfigMap", namespace: "default", name: "y" })).toEqual(["uid-1"]);
    await vm.waitForAttachAndMount(p); // no clock advance: retried at once
    expect(readFileSync(join(vm.hostPath(p, "cfg")!, "key"), "utf8")).toBe("v1");
    expect(vm.generation("uid-1", "cfg")).toBe(1);
  });

  test("a volume no plugin makes is never dropped: the pod waits, and the message says so", async () => {
    const { vm } = setup();
    const e = await mountError(vm.waitForAttachAndMount(pod([{ name: "data", persistentVolumeClaim: { claimName: "c" } }])));
    expect(e.message).toContain(`MountVolume.SetUp failed for volume "data" : no volume plugin matched: the agent cannot make persistentVolumeClaim volumes`);
  });

  test("a hostPath whose type does not match waits with the kubelet's type check message", async () => {
    const { vm } = setup();
    const e = await mountError(vm.waitForAttachAndMount(pod([{ name: "h", hostPath: { path: "/etc/hostname", type: "Directory" } }])));
    expect(e.message).toContain(`MountVolume.SetUp failed for volume "h" : hostPath type check failed: /etc/hostname is not a directory`);
  });
});

describe("refresh", () => {
  test("every wait sets up configMap volumes again (ReprocessPod); emptyDir once", async () => {
    const { vm, objects, cm } = setup();
    objects.putConfigMap("default", "y", { key: "v1" });
    const p = pod([cfg, { name: "work", emptyDir: {} }]);
    await vm.waitForAttachAndMount(p);
    objects.putConfigMap("default", "y", { key: "v2" });
    await vm.waitForAttachAndMount(p);
    expect(cm.setUps).toBe(2);
    expect(vm.generation("uid-1", "cfg")).toBe(2);
    expect(vm.generation("uid-1", "work")).toBe(1);
    expect(readFileSync(join(vm.hostPath(p, "cfg")!, "key"), "utf8")).toBe("v2");
  });

  test("a refresh that fails keeps the mounted content and does not hold the pod back", async () => {
    const { vm, objects, clock } = setup();
    objects.putConfigMap("default", "y", { key: "v1" });
    const p = pod([cfg]);
    await vm.waitForAttachAndMount(p);
    objects.configMaps.clear();
    await clock.advance(1);
    await vm.waitForAttachAndMount(p);
    expect(vm.generation("uid-1", "cfg")).toBe(1);
    expect(readFileSync(join(vm.hostPath(p, "cfg")!, "key"), "utf8")).toBe("v1");
  });
});

describe("mountSource (subPath)", () => {
  test("a subPath of an atomic-writer volume is resolved to the timestamped folder, so later updates do not reach it", async () => {
    const { vm, objects } = setup();
    objects.putConfigMap("default", "y", { key: "v1" });
    const p = pod([cfg]);
    await vm.waitForAttachAndMount(p);
    const root = vm.hostPath(p, "cfg")!;
    expect(vm.mountSource(p, "cfg", "")).toBe(root);
    const source = vm.mountSource(p, "cfg", "key")!;
    expect(source).toBe(join(root, "..ts_1", "key"));
    // What a runtime bound at container creation (the resolved file, held open here) keeps the old
    // content; the whole-volume mount's path follows `..data` to the new one.
    const held = Bun.file(source);
    const before = await held.text();
    objects.putConfigMap("default", "y", { key: "v2" });
    await vm.waitForAttachAndMount(p);
    expect(before).toBe("v1");
    expect(readFileSync(join(root, "key"), "utf8")).toBe("v2");
    expect(vm.mountSource(p, "cfg", "key")).toBe(join(root, "..ts_2", "key"));
  });

  test("a subPath that a link leads out of its volume is refused (CVE-2017-1002101)", async () => {
    const { vm } = setup();
    const p = pod([{ name: "work", emptyDir: {} }]);
    await vm.waitForAttachAndMount(p);
    symlinkSync("/etc", join(vm.hostPath(p, "work")!, "evil"));
    expect(() => vm.mountSource(p, "work", "evil/passwd")).toThrow(PathEscapeError);
    expect(vm.mountSource(p, "work", "not/yet")).toBe(join(vm.hostPath(p, "work")!, "not", "yet"));
    expect(vm.mountSource(p, "nope", "")).toBeUndefined();
  });
});

describe("unmountPod and the cleanup after a restart", () => {
  test("unmountPod tears every volume down, unmounts what is left and removes the volumes folder", async () => {
    const { vm, objects, cm, mounts, podsDir } = setup();
    objects.putConfigMap("default", "y", { key: "v1" });
    const p = pod([cfg, { name: "work", emptyDir: {} }]);
    await vm.waitForAttachAndMount(p);
    const leftover = join(podsDir, "uid-1", "volumes", "kubernetes.io~empty-dir", "work");
    mounts.mounted.add(leftover);
    await vm.unmountPod("uid-1");
    expect(cm.tearDowns).toEqual([join(podsDir, "uid-1", "volumes", "kubernetes.io~configmap", "cfg")]);
    expect(mounts.unmounted).toEqual([leftover]);
    expect(existsSync(join(podsDir, "uid-1", "volumes"))).toBe(false);
    expect(objects.registered.has("uid-1")).toBe(false);
    expect(vm.hostPath(p, "cfg")).toBeUndefined();
  });

  test("a mount that will not go keeps the folder (never removed recursively through a mount), and the error goes up", async () => {
    const { vm, mounts, podsDir } = setup();
    const p = pod([{ name: "work", emptyDir: {} }]);
    await vm.waitForAttachAndMount(p);
    const m = join(podsDir, "uid-1", "volumes", "kubernetes.io~empty-dir", "work");
    writeFileSync(join(m, "data"), "x");
    mounts.mounted.add(m);
    mounts.stuck.add(m);
    await expect(vm.unmountPod("uid-1")).rejects.toThrow(/still mounted/);
    // Nothing below the stuck mount was removed: no tearDown ran, the file in it is there.
    expect(readFileSync(join(m, "data"), "utf8")).toBe("x");
  });

  test("after a restart: folders of gone pods are unmounted and removed, those of live pods adopted", async () => {
    const { podsDir, objects, cm, mounts, make } = setup();
    objects.putConfigMap("default", "y", { key: "v1" });
    const first = make();
    const live = pod([cfg], "uid-live");
    const gone = pod([cfg, { name: "mem", emptyDir: {} }], "uid-gone");
    await first.waitForAttachAndMount(live);
    await first.waitForAttachAndMount(gone);
    const memMount = join(podsDir, "uid-gone", "volumes", "kubernetes.io~empty-dir", "mem");
    mounts.mounted.add(memMount);
    mkdirSync(join(podsDir, "uid-nothing", "containers", "app"), { recursive: true });
    writeFileSync(join(podsDir, "not-a-pod.txt"), "");
    // kill -9: a new manager with empty memory; the configMap is gone meanwhile.
    objects.configMaps.clear();
    const second = make();
    await second.cleanupOrphans((uid) => uid === "uid-live");
    expect(existsSync(join(podsDir, "uid-gone"))).toBe(false);
    expect(existsSync(join(podsDir, "uid-nothing"))).toBe(false);
    expect(mounts.unmounted).toEqual([memMount]);
    expect(cm.tearDowns).toEqual([join(podsDir, "uid-gone", "volumes", "kubernetes.io~configmap", "cfg")]);
    expect(existsSync(join(podsDir, "not-a-pod.txt"))).toBe(true);
    // The live pod keeps its volume: its first sync adopts the content the earlier run made.
    await second.waitForAttachAndMount(live);
    expect(readFileSync(join(second.hostPath(live, "cfg")!, "key"), "utf8")).toBe("v1");
  });
});

describe("housekeeping: mounts of pods that are gone (issue 24, finding 7)", () => {
  const projected = (podsDir: string, uid: string) => join(podsDir, uid, "volumes", "kubernetes.io~projected", "kube-api-access-x");

  test("a pod the agent no longer knows, whose volumes this manager still holds (a set-up that finished after its removal), is unmounted and removed, each mount logged once", async () => {
    const { log, lines } = linesLog();
    const { vm, mounts, podsDir } = setup(log);
    const p = pod([{ name: "work", emptyDir: {} }], "uid-late");
    await vm.waitForAttachAndMount(p);
    // The late set-up's tmpfs, as upstream's conformance runs left one.
    const tmpfs = projected(podsDir, "uid-late");
    mkdirSync(tmpfs, { recursive: true });
    mounts.mounted.add(tmpfs);
    await vm.cleanupOrphans(() => false);
    expect(mounts.unmounted).toEqual([tmpfs]);
    expect(existsSync(join(podsDir, "uid-late"))).toBe(false);
    expect(vm.hostPath(p, "work")).toBeUndefined();
    expect(lines.filter((l) => l.includes(tmpfs))).toEqual([`info unmounted a mount still there after its pod was gone uid=uid-late path=${tmpfs}`]);
    // The next pass finds nothing and says nothing.
    const before = lines.length;
    await vm.cleanupOrphans(() => false);
    expect(lines.length).toBe(before);
  });

  test("mounts outside volumes/ and a mount whose pod folder is the only trace are unmounted before the folder goes; known pods are left alone", async () => {
    const { log, lines } = linesLog();
    const { vm, mounts, podsDir } = setup(log);
    const bind = join(podsDir, "uid-gone", "volume-subpaths", "cfg", "app", "0");
    const tmpfs = projected(podsDir, "uid-gone");
    const live = projected(podsDir, "uid-live");
    for (const d of [bind, tmpfs, live]) {
      mkdirSync(d, { recursive: true });
      mounts.mounted.add(d);
    }
    await vm.cleanupOrphans((uid) => uid === "uid-live");
    expect(mounts.unmounted.sort()).toEqual([tmpfs, bind].sort());
    expect(existsSync(join(podsDir, "uid-gone"))).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect([...mounts.mounted]).toEqual([live]);
    expect(lines.filter((l) => l.includes("unmounted")).length).toBe(2);
  });

  test("a mount that will not go keeps the folder and is tried again at the next pass", async () => {
    const { log, lines } = linesLog();
    const { vm, mounts, podsDir } = setup(log);
    const tmpfs = projected(podsDir, "uid-stuck");
    mkdirSync(tmpfs, { recursive: true });
    mounts.mounted.add(tmpfs);
    mounts.stuck.add(tmpfs);
    await vm.cleanupOrphans(() => false);
    expect(existsSync(tmpfs)).toBe(true);
    expect(lines.some((l) => l.startsWith("warn cleaning up the folder of a gone pod failed uid=uid-stuck err=") && l.includes("still mounted"))).toBe(true);
    mounts.stuck.clear();
    await vm.cleanupOrphans(() => false);
    expect(existsSync(join(podsDir, "uid-stuck"))).toBe(false);
    expect(mounts.unmounted).toEqual([tmpfs]);
  });

  test("a pod that becomes known before its turn is not torn down (isKnown is asked again)", async () => {
    const { vm, mounts, podsDir } = setup();
    const tmpfs = projected(podsDir, "uid-back");
    mkdirSync(tmpfs, { recursive: true });
    mounts.mounted.add(tmpfs);
    let asks = 0;
    await vm.cleanupOrphans(() => asks++ > 0);
    expect(asks).toBe(2);
    expect(mounts.unmounted).toEqual([]);
    expect(existsSync(tmpfs)).toBe(true);
  });
});

describe("ProcMountTable", () => {
  test("is the mounter's view: the mounts below a folder (reached through a link: by its real path), the last mounted first, unmounted through it", async () => {
    const { ProcMountTable } = await import("../../src/volume/mount-table");
    const dir = join(base, `mt-${++n}`);
    const s = join(dir, "real", "pods", "u1", "volumes", "kubernetes.io~secret", "s");
    mkdirSync(join(s, "inner"), { recursive: true });
    symlinkSync(join(dir, "real"), join(dir, "link"));
    const mounter = new FakeMounter();
    await mounter.mountTmpfs(s);
    await mounter.mountTmpfs(join(s, "inner"));
    const table = new ProcMountTable(mounter);
    expect(table.mountPointsUnder(join(dir, "link", "pods"))).toEqual([join(s, "inner"), s]);
    await table.unmount(join(s, "inner"));
    expect(table.mountPointsUnder(join(dir, "link", "pods"))).toEqual([s]);
    expect(table.mountPointsUnder(join(dir, "missing"))).toEqual([]);
  });
});
