// Setting up one pod volume on the host (the kubelet's Mounter.SetUp of each plugin,
// k/k@1.24.1 pkg/volume/{configmap,secret,downwardapi,projected,emptydir,hostpath}): given the pod,
// the volume and where pods live, make the volume's directory (a tmpfs where the kubelet keeps it in
// memory), write its content with the atomic writer, and return the host path containers bind.
//
// Idempotent, and meant to be called on every pod sync: that is how the kubelet refreshes configMap,
// secret, downwardAPI and projected contents (WaitForAttachAndMount → ReprocessPod → SetUp again).
// A second call finds the tmpfs mounted and the directory made, recomputes the payload and lets the
// atomic writer decide whether anything changed.
//
// Order, as the plugins do it: the content is computed first (a missing object or key fails before
// anything is made), then the directory is made and mounted, then the content written. When the first
// setup of a volume fails after its directory was made, the directory is unmounted and removed again
// (the plugins' `setupSuccess` defer); a failed refresh leaves the previous content in place for the
// running containers.
//
// Any other volume kind (persistentVolumeClaim, csi, nfs, …) is an UnsupportedVolumeError, which the
// volume manager reports as FailedMount: never silently dropped (issue 15).
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, statSync } from "node:fs";
import type { HostPathVolumeSource, Pod, Volume } from "kubernetes-types/core/v1";
import { type PluginKind, podRef, podVolumesDir, volumeDir } from "../api";
import { type Clock, errorCode, type Logger, mkdirInside } from "../util";
import { AtomicWriter } from "./atomic-writer";
import { configMapPayload } from "./configmap";
import type { ObjectSource, ResourceList } from "../objects";
import { downwardAPIPayload } from "./downward-api";
import { EMPTY_DIR_MODE, memoryVolumeSizeBytes } from "./empty-dir";
import { canonicalPath, isTmpfsMountPoint, unmountAndRemove, type Mounter } from "./mount";
import { DEFAULT_MODE } from "./payload";
import { setVolumeOwnership } from "./ownership";
import { projectedPayload } from "./projected";
import { secretPayload } from "./secret";
import type { Payload } from "./types";

/** What setting up a volume needs from the node. */
export interface VolumeHost {
  /** <root-dir>/pods: volumes are made under <podsDir>/<uid>/volumes. */
  podsDir: string;
  objects: ObjectSource;
  mounter: Mounter;
  /** Names the atomic writer's version directories. */
  clock: Clock;
  /**
   * The node's status.allocatable (the kubelet's VolumeHost.GetNodeAllocatable): its memory bounds a
   * tmpfs, and cpu/memory/ephemeral-storage stand in for a limit a container does not set in
   * resourceFieldRef values (defaultPodLimitsForDownwardAPI). Asked for when a volume needs it.
   */
  nodeAllocatable?: () => Promise<ResourceList | undefined>;
  /** Where fsGroup ownership tells a path it could not change (src/volume/ownership.ts). */
  log?: Pick<Logger, "warn">;
}

/**
 * Whether containers must mount the volume read-only whatever their volumeMount says: the kubelet's
 * mustMountRO (the plugins' GetAttributes().ReadOnly), true for configMap, secret, downwardAPI and
 * projected since CVE-2017-1002102.
 */
export function mustMountReadOnly(v: Volume): boolean {
  return v.configMap !== undefined || v.secret !== undefined || v.downwardAPI !== undefined || v.projected !== undefined;
}

/** A volume kind the agent does not make; the manager turns it into FailedMount. */
export class UnsupportedVolumeError extends Error {
  override name = "UnsupportedVolumeError";
  constructor(
    readonly volume: string,
    readonly kind: string,
  ) {
    super(`unsupported volume type ${kind} for volume "${volume}": nodeagent makes configMap, secret, downwardAPI, projected, emptyDir and hostPath volumes`);
  }
}

/** A hostPath whose `type` check fails; the message is host_path.go's checkType text. */
export class HostPathTypeError extends Error {
  override name = "HostPathTypeError";
}

/** The volume source's field name ("persistentVolumeClaim", "csi", …), for the unsupported message. */
export function volumeKind(v: Volume): string {
  return Object.keys(v).find((k) => k !== "name" && (v as unknown as Record<string, unknown>)[k] !== undefined) ?? "none";
}

/**
 * emptyDir's setupDir, which every plugin here wraps: <podsDir>/<uid>/volumes made 0750 (the
 * kubelet's pod volumes dir), the volume's directory made and then chmodded to 0777 when its
 * permission bits differ (the umask narrowed them) — so a tmpfs already mounted there keeps its 1777.
 */
function setupDir(host: VolumeHost, pod: Pod, dir: string): void {
  mkdirInside(host.podsDir, podVolumesDir(host.podsDir, podRef(pod).uid), 0o750);
  mkdirInside(host.podsDir, dir, 0o755);
  if ((statSync(dir).mode & 0o777) !== EMPTY_DIR_MODE) chmodSync(dir, EMPTY_DIR_MODE);
}

/**
 * A memory-backed volume's directory: made, then a tmpfs mounted on it unless one already is
 * (setupTmpfs), sized by calculateEmptyDirMemorySize. Returns whether it was just mounted.
 */
async function setUpTmpfs(host: VolumeHost, pod: Pod, dir: string, sizeLimit: string | number | undefined): Promise<boolean> {
  setupDir(host, pod, dir);
  if (isTmpfsMountPoint(host.mounter, dir)) return false;
  await host.mounter.mountTmpfs(dir, memoryVolumeSizeBytes(pod, sizeLimit, (await host.nodeAllocatable?.())?.memory));
  return true;
}

/** Whether something is at path (a link is not followed). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    if (errorCode(e) === "ENOENT") return false;
    throw e;
  }
}

/** The content volumes: payload first, then directory (tmpfs or disk), then the atomic write. */
async function setUpContent(host: VolumeHost, pod: Pod, v: Volume, kind: PluginKind, memory: boolean, payload: () => Promise<Payload>): Promise<string> {
  const files = await payload();
  const dir = volumeDir(host.podsDir, podRef(pod).uid, kind, v.name);
  const fresh = !exists(dir);
  try {
    if (memory) await setUpTmpfs(host, pod, dir, undefined);
    else setupDir(host, pod, dir);
    // The plugins' setPerms: fsGroup ownership of the whole volume (the new version, the links, the
    // root), run by the writer before it swaps the new version in, and only when it writes one. The
    // kubelet gives these plugins no fsGroupChangePolicy: the walk is Always.
    new AtomicWriter(dir, host.clock).write(files, () => setVolumeOwnership(dir, pod.spec?.securityContext?.fsGroup, { readOnly: true, log: host.log }));
  } catch (e) {
    if (fresh) await unmountAndRemove(host.podsDir, dir, host.mounter).catch(() => undefined);
    throw e;
  }
  return dir;
}

/** A configMap volume: on disk (the plugin wraps a disk emptyDir). */
export function setUpConfigMapVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  return setUpContent(host, pod, v, "configMap", false, () => configMapPayload(pod, v.configMap!, host.objects));
}

/** A secret volume: on tmpfs, so a secret never reaches the disk. */
export function setUpSecretVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  return setUpContent(host, pod, v, "secret", true, () => secretPayload(pod, v.secret!, host.objects));
}

/** A downwardAPI volume: on tmpfs; labels and annotations files follow the pod on each call. */
export function setUpDownwardAPIVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  const src = v.downwardAPI!;
  return setUpContent(host, pod, v, "downwardAPI", true, async () =>
    downwardAPIPayload(pod, src.items ?? [], src.defaultMode ?? DEFAULT_MODE, await host.nodeAllocatable?.()),
  );
}

/** A projected volume: on tmpfs, all its sources in one atomic directory. */
export function setUpProjectedVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  return setUpContent(host, pod, v, "projected", true, async () => projectedPayload(pod, v.projected!, host.objects, await host.nodeAllocatable?.()));
}

/**
 * An emptyDir: a 0777 directory on disk, or a sized tmpfs for `medium: Memory`. fsGroup ownership is
 * applied when the volume is made (the directory was not there, the tmpfs not mounted), not on later
 * syncs: as the kubelet's emptyDir SetUpAt returns early for a volume already ready, so the files
 * containers write later keep the group and mode they were given. A failed ownership change is logged
 * and the volume used, as the kubelet ignores ChangePermissions' error there.
 */
export async function setUpEmptyDirVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  const src = v.emptyDir!;
  const dir = volumeDir(host.podsDir, podRef(pod).uid, "emptyDir", v.name);
  let made: boolean;
  if (src.medium === "Memory") {
    made = await setUpTmpfs(host, pod, dir, src.sizeLimit);
  } else if (src.medium && src.medium !== "") {
    // HugePages media need hugetlbfs mounts the agent does not make.
    throw new UnsupportedVolumeError(v.name, `emptyDir with medium ${src.medium}`);
  } else {
    made = !exists(dir);
    setupDir(host, pod, dir);
  }
  if (made) {
    try {
      setVolumeOwnership(dir, pod.spec?.securityContext?.fsGroup, { readOnly: false, log: host.log });
    } catch (err) {
      host.log?.warn("setting the fsGroup ownership of an emptyDir failed", { path: dir, err });
    }
  }
  return dir;
}

/** The kind of file at path, or undefined when nothing is there. */
function fileKind(path: string): "dir" | "file" | "socket" | "char" | "block" | "other" | undefined {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    if (errorCode(e) === "ENOENT" || errorCode(e) === "ENOTDIR") return undefined;
    throw e;
  }
  if (st.isDirectory()) return "dir";
  if (st.isFile()) return "file";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "char";
  if (st.isBlockDevice()) return "block";
  return "other";
}

/**
 * A hostPath volume: the path itself, checked against `type` as host_path.go checkType does
 * (DirectoryOrCreate makes a 0755 directory, FileOrCreate an empty 0644 file); no type, no check.
 * @throws HostPathTypeError
 */
export function setUpHostPathVolume(_pod: Pod, v: Volume, _host?: VolumeHost): string {
  const src: HostPathVolumeSource = v.hostPath!;
  const path = src.path;
  const type = src.type ?? "";
  const kind = fileKind(path);
  const fail = (what: string) => new HostPathTypeError(`hostPath type check failed: ${path} is not ${what}`);
  switch (type) {
    case "":
      return path;
    case "DirectoryOrCreate":
      if (kind === undefined) {
        mkdirSync(path, { recursive: true, mode: 0o755 });
        return path;
      }
      if (kind !== "dir") throw fail("a directory");
      return path;
    case "Directory":
      if (kind !== "dir") throw fail("a directory");
      return path;
    case "FileOrCreate":
      if (kind === undefined) {
        closeSync(openSync(path, "a", 0o644));
        return path;
      }
      if (kind === "dir") throw fail("a file");
      return path;
    case "File":
      if (kind === undefined || kind === "dir") throw fail("a file");
      return path;
    case "Socket":
      if (kind !== "socket") throw fail("a socket file");
      return path;
    case "CharDevice":
      if (kind !== "char") throw fail("a character device");
      return path;
    case "BlockDevice":
      if (kind !== "block") throw fail("a block device");
      return path;
    default:
      throw new HostPathTypeError(`${type} is an invalid volume type`);
  }
}

/**
 * Sets up any pod volume and returns its host path.
 * @throws UnsupportedVolumeError, ObjectNotFoundError, ObjectSourceError, MissingKeyError,
 *   ProjectedVolumeError, DownwardAPIError, HostPathTypeError, PayloadPathError, MountError, PathEscapeError
 */
export async function setUpVolume(pod: Pod, v: Volume, host: VolumeHost): Promise<string> {
  if (v.configMap) return setUpConfigMapVolume(pod, v, host);
  if (v.secret) return setUpSecretVolume(pod, v, host);
  if (v.downwardAPI) return setUpDownwardAPIVolume(pod, v, host);
  if (v.projected) return setUpProjectedVolume(pod, v, host);
  if (v.emptyDir) return setUpEmptyDirVolume(pod, v, host);
  if (v.hostPath) return setUpHostPathVolume(pod, v, host);
  throw new UnsupportedVolumeError(v.name, volumeKind(v));
}

/**
 * A pod is gone: every mount under <podsDir>/<uid>/volumes is unmounted (tmpfs included), then the
 * directory is removed. Refuses a UID that cannot name a folder (PathEscapeError); MountError when an
 * unmount fails, and then nothing is removed.
 */
export async function tearDownPodVolumes(podsDir: string, uid: string, mounter: Mounter): Promise<void> {
  await unmountAndRemove(podsDir, podVolumesDir(podsDir, uid), mounter);
}

/**
 * The pods that have something mounted under <podsDir>/<uid>/volumes: after a restart (even kill -9)
 * the volume manager compares them with the pods it knows, adopts the mounts of live ones and tears
 * down the rest.
 */
export function mountedPodUIDs(podsDir: string, mounter: Mounter): string[] {
  const uids = new Set<string>();
  const root = canonicalPath(podsDir);
  for (const m of mounter.mountsUnder(podsDir)) {
    const rest = m.mountPoint.slice(root.length + 1).split("/");
    if (rest.length >= 3 && rest[1] === "volumes") uids.add(rest[0]!);
  }
  return [...uids].sort();
}
