import { afterEach, beforeEach, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { FakeClock } from "../../src/util/clock";
import { PathEscapeError } from "../../src/util/confined-path";
import { memoryVolumeSizeBytes, podMemoryLimitBytes } from "../../src/volume/empty-dir";
import { mountsUnder, SystemMounter } from "../../src/volume/mount";
import {
  HostPathTypeError,
  mountedPodUIDs,
  mustMountReadOnly,
  setUpVolume,
  tearDownPodVolumes,
  UnsupportedVolumeError,
  type VolumeHost,
} from "../../src/volume/set-up";
import { volumeDir, volumeHostPath } from "../../src/api/pod-dirs";
import { FakeMounter } from "../fakes/mounter";
import { FakeObjectSource } from "../fakes/object-source";

const UID = "8f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f";
const system = new SystemMounter();
let root: string;
let podsDir: string;
let clock: FakeClock;
let objects: FakeObjectSource;
let host: VolumeHost;

const pod = (volumes: Volume[], memoryLimit?: string, uid = UID): Pod => ({
  metadata: { name: "web", namespace: "prod", uid, labels: { app: "web" } },
  spec: { serviceAccountName: "builder", containers: [{ name: "app", ...(memoryLimit ? { resources: { limits: { memory: memoryLimit } } } : {}) }], volumes },
});
const path = (dir: string, p: string) => readFileSync(join(dir, p), "utf8");

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "volume-setup-"));
  podsDir = join(root, "pods");
  mkdirSync(podsDir);
  clock = new FakeClock(Date.UTC(2026, 0, 1));
  objects = new FakeObjectSource(clock);
  objects.setConfigMap({ metadata: { namespace: "prod", name: "cfg" }, data: { "app.conf": "v1" } });
  objects.setSecret({ metadata: { namespace: "prod", name: "creds" }, stringData: { pass: "s3cr3t" } });
  host = { podsDir, objects, mounter: system, clock, nodeAllocatable: async () => ({ memory: "1Gi", cpu: "2" }) };
});
afterEach(async () => {
  for (const m of mountsUnder(root)) await system.unmount(m.mountPoint).catch(() => undefined);
  expect(mountsUnder(root)).toEqual([]);
  rmSync(root, { recursive: true, force: true });
});

test("paths are the kubelet's <podsDir>/<uid>/volumes/kubernetes.io~<plugin>/<name>; bad UIDs and names refused", () => {
  const p = pod([]);
  expect(volumeHostPath(p, { name: "c", configMap: { name: "cfg" } }, "/var/lib/pods")).toBe(`/var/lib/pods/${UID}/volumes/kubernetes.io~configmap/c`);
  expect(volumeHostPath(p, { name: "s", secret: {} }, "/p")).toBe(`/p/${UID}/volumes/kubernetes.io~secret/s`);
  expect(volumeHostPath(p, { name: "d", downwardAPI: {} }, "/p")).toBe(`/p/${UID}/volumes/kubernetes.io~downward-api/d`);
  expect(volumeHostPath(p, { name: "t", projected: {} }, "/p")).toBe(`/p/${UID}/volumes/kubernetes.io~projected/t`);
  expect(volumeHostPath(p, { name: "e", emptyDir: {} }, "/p")).toBe(`/p/${UID}/volumes/kubernetes.io~empty-dir/e`);
  expect(volumeHostPath(p, { name: "h", hostPath: { path: "/etc" } }, "/p")).toBe("/etc");
  expect(volumeHostPath(p, { name: "n", nfs: { server: "s", path: "/" } }, "/p")).toBeUndefined();
  expect(() => volumeDir("/p", "../../etc", "secret", "x")).toThrow(PathEscapeError);
  expect(() => volumeDir("/p", UID, "secret", "..")).toThrow(PathEscapeError);
});

test("configMap volume: on disk, atomic layout, refreshed on the next call, optional missing → empty", async () => {
  const p = pod([{ name: "cfg", configMap: { name: "cfg" } }]);
  const dir = await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(dir).toBe(join(podsDir, UID, "volumes", "kubernetes.io~configmap", "cfg"));
  expect(mountsUnder(root)).toEqual([]);
  expect(statSync(dir).mode & 0o777).toBe(0o777);
  expect(path(dir, "app.conf")).toBe("v1");
  expect(readlinkSync(join(dir, "app.conf"))).toBe("..data/app.conf");
  const first = readlinkSync(join(dir, "..data"));
  // Unchanged: the same version. Changed: the new content through a new version.
  expect(await setUpVolume(p, p.spec!.volumes![0]!, host)).toBe(dir);
  expect(readlinkSync(join(dir, "..data"))).toBe(first);
  objects.setConfigMap({ metadata: { namespace: "prod", name: "cfg" }, data: { "app.conf": "v2" } });
  await clock.advance(1000);
  await setUpVolume(p, p.spec!.volumes![0]!, host);
  expect(path(dir, "app.conf")).toBe("v2");
  expect(readlinkSync(join(dir, "..data"))).not.toBe(first);

  const opt = pod([{ name: "o", configMap: { name: "gone", optional: true } }]);
  const odir = await setUpVolume(opt, opt.spec!.volumes![0]!, host);
  expect(lstatSync(join(odir, "..data")).isSymbolicLink()).toBe(true);
});

test("secret, downwardAPI and projected volumes live on a tmpfs sized by the pod's memory limit; a second call does not mount again", async () => {
  const p = pod(
    [
      { name: "creds", secret: { secretName: "creds", defaultMode: 0o400 } },
      { name: "info", downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
      {
        name: "kube-api-access-abcde",
        projected: {
          sources: [
            { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
            { configMap: { name: "cfg", items: [{ key: "app.conf", path: "ca.crt" }] } },
          ],
        },
      },
    ],
    "64Mi",
  );
  const dirs: string[] = [];
  for (const v of p.spec!.volumes!) dirs.push(await setUpVolume(p, v, host));
  const mounts = mountsUnder(podsDir);
  expect(mounts.map((m) => m.mountPoint).sort()).toEqual([...dirs].sort());
  for (const m of mounts) {
    expect(m.fsType).toBe("tmpfs");
    expect(m.superOptions).toContain("size=65536k");
  }
  expect(path(dirs[0]!, "pass")).toBe("s3cr3t");
  expect(statSync(join(dirs[0]!, "pass")).mode & 0o777).toBe(0o400);
  expect(path(dirs[1]!, "labels")).toBe('app="web"');
  expect(path(dirs[2]!, "token")).toBe("token-1");
  expect(path(dirs[2]!, "ca.crt")).toBe("v1");
  // The tmpfs root keeps its sticky 1777 (the kubelet's setupDir does not chmod an equal mode).
  expect(statSync(dirs[0]!).mode & 0o7777).toBe(0o1777);
  for (const v of p.spec!.volumes!) await setUpVolume(p, v, host);
  expect(mountsUnder(podsDir)).toHaveLength(3);
  // A new token on every sync (the ObjectSource caches; the fake does not) reaches the file.
  expect(path(dirs[2]!, "token")).toBe("token-2");

  await tearDownPodVolumes(podsDir, UID, system);
  expect(mountsUnder(root)).toEqual([]);
  expect(existsSync(join(podsDir, UID, "volumes"))).toBe(false);
});

test("a failed first setup leaves no mount and no folder; a failed refresh keeps the content", async () => {
  const p = pod([{ name: "s", secret: { secretName: "creds", items: [{ key: "pass", path: "p" }] } }]);
  const v = p.spec!.volumes![0]!;
  const fake = new FakeMounter();
  host.mounter = fake;
  // Content errors come before anything is made.
  const missing = pod([{ name: "m", secret: { secretName: "absent" } }]);
  await expect(setUpVolume(missing, missing.spec!.volumes![0]!, host)).rejects.toThrow('secret "absent" not found');
  expect(fake.calls).toEqual([]);
  expect(existsSync(join(podsDir, UID, "volumes", "kubernetes.io~secret", "m"))).toBe(false);
  // A mount failure undoes the folder.
  fake.failMount = "mount: permission denied";
  await expect(setUpVolume(p, v, host)).rejects.toThrow("permission denied");
  expect(existsSync(join(podsDir, UID, "volumes", "kubernetes.io~secret", "s"))).toBe(false);
  fake.failMount = undefined;
  const dir = await setUpVolume(p, v, host);
  expect(path(dir, "p")).toBe("s3cr3t");
  objects.deleteSecret("prod", "creds");
  await expect(setUpVolume(p, v, host)).rejects.toThrow('secret "creds" not found');
  expect(path(dir, "p")).toBe("s3cr3t");
});

test("emptyDir: disk 0777; Memory on a tmpfs sized by sizeLimit below the pod limit; hugepages unsupported", async () => {
  const p = pod(
    [
      { name: "scratch", emptyDir: {} },
      { name: "ram", emptyDir: { medium: "Memory", sizeLimit: "8Mi" } },
      { name: "huge", emptyDir: { medium: "HugePages" } },
    ],
    "64Mi",
  );
  const old = process.umask(0o077);
  let disk: string;
  try {
    disk = await setUpVolume(p, p.spec!.volumes![0]!, host);
  } finally {
    process.umask(old);
  }
  expect(statSync(disk).mode & 0o777).toBe(0o777);
  expect(mountsUnder(root)).toEqual([]);
  const ram = await setUpVolume(p, p.spec!.volumes![1]!, host);
  const [m] = mountsUnder(ram);
  expect(m!.superOptions).toContain("size=8192k");
  writeFileSync(join(ram, "x"), "y");
  await expect(setUpVolume(p, p.spec!.volumes![2]!, host)).rejects.toBeInstanceOf(UnsupportedVolumeError);
  await tearDownPodVolumes(podsDir, UID, system);
  expect(mountsUnder(root)).toEqual([]);
});

test("tmpfs size: min of node allocatable, pod limit (all containers limited), sizeLimit; none → kernel default", () => {
  const two = (a?: string, b?: string): Pod => ({
    metadata: {},
    spec: {
      containers: [
        { name: "a", resources: a ? { limits: { memory: a } } : {} },
        { name: "b", resources: b ? { limits: { memory: b } } : {} },
      ],
    },
  });
  expect(podMemoryLimitBytes(two("64Mi", "32Mi"))).toBe(96 * 1024 * 1024);
  expect(podMemoryLimitBytes(two("64Mi"))).toBeUndefined();
  const withInit = two("64Mi", "32Mi");
  withInit.spec!.initContainers = [{ name: "i", resources: { limits: { memory: "1Gi" } } }];
  withInit.spec!.overhead = { memory: "1Mi" };
  expect(podMemoryLimitBytes(withInit)).toBe(1025 * 1024 * 1024);
  expect(memoryVolumeSizeBytes(two(), undefined)).toBeUndefined();
  expect(memoryVolumeSizeBytes(two(), undefined, "2Gi")).toBe(2 * 1024 ** 3);
  expect(memoryVolumeSizeBytes(two("64Mi", "32Mi"), undefined, "2Gi")).toBe(96 * 1024 ** 2);
  expect(memoryVolumeSizeBytes(two("64Mi", "32Mi"), "1Gi", "2Gi")).toBe(96 * 1024 ** 2);
  expect(memoryVolumeSizeBytes(two("64Mi", "32Mi"), "10Mi", "2Gi")).toBe(10 * 1024 ** 2);
  expect(memoryVolumeSizeBytes(two(), "0")).toBeUndefined();
});

test("hostPath: type checks with the kubelet's messages; DirectoryOrCreate and FileOrCreate create", async () => {
  const dir = join(root, "host", "made");
  const file = join(root, "host", "f");
  const hp = (path: string, type?: string): Volume => ({ name: "h", hostPath: { path, ...(type ? { type } : {}) } });
  const p = pod([]);
  expect(await setUpVolume(p, hp(dir, "DirectoryOrCreate"), host)).toBe(dir);
  expect(statSync(dir).isDirectory()).toBe(true);
  expect(await setUpVolume(p, hp(file, "FileOrCreate"), host)).toBe(file);
  expect(statSync(file).isFile()).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o644 & ~process.umask());
  await expect(setUpVolume(p, hp(file, "Directory"), host)).rejects.toThrow(`hostPath type check failed: ${file} is not a directory`);
  await expect(setUpVolume(p, hp(dir, "File"), host)).rejects.toThrow(`hostPath type check failed: ${dir} is not a file`);
  await expect(setUpVolume(p, hp(dir, "Socket"), host)).rejects.toThrow(`hostPath type check failed: ${dir} is not a socket file`);
  await expect(setUpVolume(p, hp("/dev/null", "CharDevice"), host)).resolves.toBe("/dev/null");
  await expect(setUpVolume(p, hp(dir, "BlockDevice"), host)).rejects.toBeInstanceOf(HostPathTypeError);
  await expect(setUpVolume(p, hp(dir, "Weird"), host)).rejects.toThrow("Weird is an invalid volume type");
  expect(await setUpVolume(p, hp(join(root, "absent")), host)).toBe(join(root, "absent"));
  expect(existsSync(join(root, "absent"))).toBe(false);
});

test("other volume kinds are an explicit unsupported error naming the volume and its kind", async () => {
  const p = pod([]);
  const err = await setUpVolume(p, { name: "data", persistentVolumeClaim: { claimName: "pvc" } }, host).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnsupportedVolumeError);
  expect((err as UnsupportedVolumeError).volume).toBe("data");
  expect((err as Error).message).toContain('unsupported volume type persistentVolumeClaim for volume "data"');
  await expect(setUpVolume(p, { name: "n", nfs: { server: "s", path: "/" } }, host)).rejects.toThrow("unsupported volume type nfs");
  await expect(setUpVolume(p, { name: "x" }, host)).rejects.toThrow("unsupported volume type none");
  expect(mustMountReadOnly({ name: "c", configMap: {} })).toBe(true);
  expect(mustMountReadOnly({ name: "e", emptyDir: {} })).toBe(false);
});

test("fsGroup: files get the group and mode|0440 (read-only kinds) or |0660 (emptyDir), dirs setgid, links untouched", async () => {
  const p = pod([
    { name: "creds", secret: { secretName: "creds", defaultMode: 0o400 } },
    {
      name: "tok",
      projected: { sources: [{ serviceAccountToken: { path: "token" } }, { configMap: { name: "cfg", items: [{ key: "app.conf", path: "conf/app" }] } }] },
    },
    { name: "scratch", emptyDir: {} },
  ]);
  p.spec!.securityContext = { fsGroup: 2000 };
  host.mounter = new FakeMounter();
  const [creds, tok, scratch] = [
    await setUpVolume(p, p.spec!.volumes![0]!, host),
    await setUpVolume(p, p.spec!.volumes![1]!, host),
    await setUpVolume(p, p.spec!.volumes![2]!, host),
  ];
  const st = (dir: string, rel: string) => statSync(join(dir, rel));
  expect(st(creds!, "pass").mode & 0o7777).toBe(0o440);
  expect(st(creds!, "pass").gid).toBe(2000);
  expect(lstatSync(join(creds!, "pass")).gid).toBe(2000);
  expect(st(creds!, "..data").mode & 0o7777).toBe(0o2755);
  expect(st(tok!, "token").mode & 0o7777).toBe(0o640);
  expect(st(tok!, "conf/app").mode & 0o7777).toBe(0o644);
  expect(st(tok!, "conf").mode & 0o7777).toBe(0o2755);
  expect(statSync(scratch!).mode & 0o7777).toBe(0o2777);
  expect(statSync(scratch!).gid).toBe(2000);
  // Without fsGroup nothing is OR-ed in.
  const plain = pod([{ name: "creds", secret: { secretName: "creds", defaultMode: 0o400 } }], undefined, "0f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f");
  const d = await setUpVolume(plain, plain.spec!.volumes![0]!, host);
  expect(statSync(join(d, "pass")).mode & 0o7777).toBe(0o400);
});

test("mountedPodUIDs finds the pods with something mounted under their volumes (an agent restart's clean-up)", async () => {
  const a = pod([
    { name: "s", secret: { secretName: "creds" } },
    { name: "c", configMap: { name: "cfg" } },
  ]);
  const b = pod([{ name: "ram", emptyDir: { medium: "Memory" } }], undefined, "1f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f");
  const c = pod([{ name: "c", configMap: { name: "cfg" } }], undefined, "2f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f");
  for (const p of [a, b, c]) for (const v of p.spec!.volumes!) await setUpVolume(p, v, host);
  expect(mountedPodUIDs(podsDir, system)).toEqual(["1f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f", UID].sort());
  await tearDownPodVolumes(podsDir, UID, system);
  expect(mountedPodUIDs(podsDir, system)).toEqual(["1f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f"]);
  await tearDownPodVolumes(podsDir, "1f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f", system);
  expect(mountedPodUIDs(podsDir, system)).toEqual([]);
});
