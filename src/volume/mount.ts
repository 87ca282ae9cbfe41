// Mounts of the volume layer: tmpfs for the volumes the kubelet keeps in memory (secret,
// downwardAPI and projected, which wrap a Memory emptyDir, and emptyDir medium: Memory), and the
// reader of /proc/self/mountinfo that tells what is mounted under a pod's directory, so that a pod's
// volumes are unmounted before its directory is removed and an agent restarted after kill -9 finds
// the tmpfs it left (k/k@1.24.1 pkg/volume/emptydir/empty_dir.go setupTmpfs/TearDownAt,
// staging/src/k8s.io/mount-utils mount_linux.go, which runs the same `mount`/`umount` commands).
//
// The Mounter is a seam: SystemMounter runs the commands on the host; tests of the callers use the
// fake in test/fakes/mounter.ts.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { assertInside, removeInside } from "../util";

/** One line of /proc/self/mountinfo (proc(5)); paths with their octal escapes decoded. */
export interface MountInfo {
  id: number;
  parentId: number;
  /** major:minor of the device. */
  device: string;
  /** The mounted directory of the file system (root of a bind mount). */
  root: string;
  mountPoint: string;
  options: string[];
  fsType: string;
  source: string;
  superOptions: string[];
}

/** Decodes the kernel's \ooo escapes of space, tab, newline and backslash (and any other octal). */
export function unescapeMountPath(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
}

/** Parses the text of a mountinfo file; lines that do not follow the format are skipped. */
export function parseMountInfo(text: string): MountInfo[] {
  const out: MountInfo[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const fields = line.split(" ");
    // id parent major:minor root mountpoint options [optional fields…] - fstype source superoptions
    const sep = fields.indexOf("-", 6);
    if (fields.length < 10 || sep < 0 || fields.length < sep + 4) continue;
    out.push({
      id: Number(fields[0]),
      parentId: Number(fields[1]),
      device: fields[2]!,
      root: unescapeMountPath(fields[3]!),
      mountPoint: unescapeMountPath(fields[4]!),
      options: fields[5]!.split(","),
      fsType: fields[sep + 1]!,
      source: unescapeMountPath(fields[sep + 2]!),
      superOptions: fields[sep + 3]!.split(","),
    });
  }
  return out;
}

/** The mounts of this process's mount namespace, in mount order. */
export function readMountInfo(path = "/proc/self/mountinfo"): MountInfo[] {
  return parseMountInfo(readFileSync(path, "utf8"));
}

/** `dir` with its symbolic links resolved when it exists, as the kernel reports mount points. */
export function canonicalPath(dir: string): string {
  const abs = resolve(dir);
  return existsSync(abs) ? realpathSync(abs) : abs;
}

/**
 * The mounts at `dir` or below it, the last mounted first: the order in which they can be unmounted
 * (a mount stacked on another, or inside it, comes after it in mountinfo).
 */
export function mountsUnder(dir: string, mounts: readonly MountInfo[] = readMountInfo()): MountInfo[] {
  const root = canonicalPath(dir);
  return mounts.filter((m) => m.mountPoint === root || m.mountPoint.startsWith(root === "/" ? "/" : `${root}/`)).reverse();
}

/** A mount or unmount the system refused: the command's own words. */
export class MountError extends Error {
  override name = "MountError";
}

/** What the volume layer asks of the host's mount table. */
export interface Mounter {
  /** Mounts a tmpfs at `dir` (which exists), `size=<bytes>` when sizeBytes is set, else the kernel's default (half the RAM). */
  mountTmpfs(dir: string, sizeBytes?: number): Promise<void>;
  /** Unmounts the file system mounted at `dir`. */
  unmount(dir: string): Promise<void>;
  /** The mounts at or below `dir`, the last mounted first. */
  mountsUnder(dir: string): MountInfo[];
}

/** The host's mount table, changed through util-linux `mount` and `umount`, as mount-utils does. */
export class SystemMounter implements Mounter {
  async mountTmpfs(dir: string, sizeBytes?: number): Promise<void> {
    const options = sizeBytes !== undefined && sizeBytes > 0 ? ["-o", `size=${Math.floor(sizeBytes)}`] : [];
    await run(["mount", "-t", "tmpfs", ...options, "tmpfs", dir], `mounting tmpfs at ${dir}`);
  }
  async unmount(dir: string): Promise<void> {
    await run(["umount", dir], `unmounting ${dir}`);
  }
  mountsUnder(dir: string): MountInfo[] {
    return mountsUnder(dir);
  }
}

/** Runs a command; a non-zero exit becomes a MountError with its output (mount-utils' "mount failed: exit status 32 …"). */
async function run(argv: string[], what: string): Promise<void> {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new MountError(`${what} failed: exit status ${code}: ${err.trim() || out.trim() || argv.join(" ")}`);
}

/** Whether a tmpfs is mounted exactly at `dir` (setupTmpfs's idempotence check, GetMountMedium). */
export function isTmpfsMountPoint(mounter: Mounter, dir: string): boolean {
  const root = canonicalPath(dir);
  return mounter.mountsUnder(dir).some((m) => m.mountPoint === root && m.fsType === "tmpfs");
}

/**
 * Unmounts everything at or below `dir`, then removes `dir`, which must be inside `root` (a pod's
 * volume directory under <podsDir>, or the pod's whole directory). Nothing is removed while a mount
 * remains: removing through a mount point would delete the content of whatever is mounted there.
 * @throws PathEscapeError when dir is not inside root (nothing is touched), MountError when an unmount fails
 */
export async function unmountAndRemove(root: string, dir: string, mounter: Mounter): Promise<void> {
  assertInside(root, dir);
  for (const m of mounter.mountsUnder(dir)) await mounter.unmount(m.mountPoint);
  const left = mounter.mountsUnder(dir);
  if (left.length) throw new MountError(`${dir} still has mounts after unmounting: ${left.map((m) => m.mountPoint).join(", ")}`);
  removeInside(root, dir);
}
