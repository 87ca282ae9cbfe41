// The kubelet's AtomicWriter (k/k@1.24.1 pkg/volume/util/atomic_writer.go), used by the secret,
// configMap, downwardAPI and projected volumes so that a container reading the volume never sees a
// half-updated set of files. The volume directory holds:
//
//   ..2026_01_01_12_00_00.123456789/   the real files of one version (mode 0755)
//   ..data -> ..2026_01_01_12_00_00.123456789
//   key    -> ..data/key                one link per top-level element of the payload
//
// A write (1) validates and cleans the payload's paths, (2) reads ..data to find the current version,
// (3) works out which user-visible paths disappeared, (4) stops there when every file already has the
// same bytes and nothing is to be removed, (5) makes a new timestamped directory, (6) writes every file
// with an explicit chmod to its mode (the open(2) mode is filtered by the umask) and, when the file
// names an owner (FileProjection.fsUser), lchowns it, (6b) calls the plugin's setPerms (fsGroup
// ownership of the whole volume, src/volume/ownership.ts) while the new version is not yet visible,
// (7) links ..data_tmp to it, (8) renames ..data_tmp over ..data — the single atomic step: a reader that resolves
// key -> ..data/key sees either the old directory or the new one, never a mix — (9) adds the missing
// top-level links, (10) removes the stale ones, (11) removes the old version.
import { randomInt } from "node:crypto";
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, posix } from "node:path";
import { type Clock, errorCode } from "../util";
import type { Payload } from "./types";

/** The link to the current version; names starting with ".." are reserved for the writer. */
export const DATA_DIR_NAME = "..data";
/** The new link, renamed over ..data. */
export const NEW_DATA_DIR_NAME = "..data_tmp";
/** maxFileNameLength and maxPathLength of atomic_writer.go. */
export const MAX_FILE_NAME_LENGTH = 255;
export const MAX_PATH_LENGTH = 4096;

/** A payload path the writer refuses; the message is the kubelet's validatePath text. */
export class PayloadPathError extends Error {
  override name = "PayloadPathError";
}

/** The kubelet's validatePath: the reasons a payload path cannot be written, with its messages. */
export function validatePayloadPath(targetPath: string): void {
  if (targetPath === "") throw new PayloadPathError(`invalid path: must not be empty: ""`);
  if (targetPath.startsWith("/")) throw new PayloadPathError(`invalid path: must be relative path: ${targetPath}`);
  if (targetPath.length > MAX_PATH_LENGTH) throw new PayloadPathError(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  if (targetPath.includes("\0")) throw new PayloadPathError(`invalid path: must not contain a NUL byte: ${JSON.stringify(targetPath)}`);
  const items = targetPath.split("/");
  for (const item of items) {
    if (item === "..") throw new PayloadPathError(`invalid path: must not contain '..': ${targetPath}`);
    if (item.length > MAX_FILE_NAME_LENGTH)
      throw new PayloadPathError(`invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} characters`);
  }
  if (items[0]!.startsWith("..") && items[0]!.length > 2) throw new PayloadPathError(`invalid path: must not start with '..': ${targetPath}`);
}

/** validatePayload: every path validated, then cleaned as filepath.Clean does ("a//b/./c" → "a/b/c"). */
export function cleanPayload(payload: Payload): Payload {
  const clean: Payload = new Map();
  for (const [path, file] of payload) {
    validatePayloadPath(path);
    const cleaned = posix.normalize(path).replace(/\/+$/, "");
    // "." or "./" cleans to the volume root itself, which cannot be a file.
    if (cleaned === "." || cleaned === "") throw new PayloadPathError(`invalid path: must not be the volume root: ${path}`);
    clean.set(cleaned, file);
  }
  return clean;
}

/** The Go time layout "..2006_01_02_15_04_05." in UTC: the prefix of a version directory. */
export function timestampPrefix(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `..${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}.`;
}

function readlinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch (e) {
    if (errorCode(e) === "ENOENT") return undefined;
    throw e;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    if (errorCode(e) === "ENOENT" || errorCode(e) === "ENOTDIR") return false;
    throw e;
  }
}

/** Every path below dir, relative to it (files and directories), as filepath.Walk visits them. */
function walkRelative(dir: string, prefix = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    out.push(rel);
    if (entry.isDirectory()) out.push(...walkRelative(join(dir, entry.name), rel));
  }
  return out;
}

/** Writes payloads into one volume directory, each write atomically replacing the last. */
export class AtomicWriter {
  constructor(
    /** The volume directory; it must exist (the plugin made it, maybe on tmpfs). */
    readonly targetDir: string,
    private readonly clock: Clock,
    /** The random part of a version directory's name (ioutil.TempDir's); injectable for tests. */
    private readonly random: () => number = () => randomInt(0, 2 ** 32),
  ) {}

  /**
   * Makes the volume hold exactly `payload`. Returns false when nothing had to change (step 4: every
   * file's bytes are already there and nothing is to be removed), true when a new version was swapped in.
   * `setPerms` runs after the new version is written and before it is swapped in, only when one is.
   * @throws PayloadPathError for a path the writer refuses (nothing is touched), or the file system's
   *   error, or what setPerms throws (then the new version is removed and the old one stays).
   */
  write(payload: Payload, setPerms?: () => void): boolean {
    const clean = cleanPayload(payload);
    const dataDirPath = join(this.targetDir, DATA_DIR_NAME);
    const oldTsDir = readlinkOrUndefined(dataDirPath);
    const oldTsPath = oldTsDir ? join(this.targetDir, oldTsDir) : undefined;

    let toRemove = new Set<string>();
    if (oldTsPath) {
      toRemove = this.pathsToRemove(clean, oldTsPath);
      if (!this.shouldWritePayload(clean, oldTsPath) && toRemove.size === 0) return false;
    }

    const tsDir = this.newTimestampDir();
    const tsDirName = basename(tsDir);
    const newDataDirPath = join(this.targetDir, NEW_DATA_DIR_NAME);
    try {
      this.writePayloadToDir(clean, tsDir);
      setPerms?.();
      // A ..data_tmp left by a crash between steps 7 and 8 would make symlink fail with EEXIST.
      rmSync(newDataDirPath, { force: true });
      symlinkSync(tsDirName, newDataDirPath);
      renameSync(newDataDirPath, dataDirPath);
    } catch (e) {
      rmSync(newDataDirPath, { force: true });
      rmSync(tsDir, { recursive: true, force: true });
      throw e;
    }

    this.createUserVisibleFiles(clean);
    this.removeUserVisiblePaths(toRemove);
    if (oldTsPath && oldTsDir !== tsDirName) rmSync(oldTsPath, { recursive: true, force: true });
    return true;
  }

  /** shouldWritePayload: some file is missing from the current version or has other bytes (modes are not compared, as the kubelet). */
  private shouldWritePayload(payload: Payload, oldTsPath: string): boolean {
    for (const [path, file] of payload) {
      const full = join(oldTsPath, path);
      if (!exists(full)) return true;
      let onDisk: Buffer;
      try {
        onDisk = readFileSync(full);
      } catch {
        return true;
      }
      if (!onDisk.equals(Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength))) return true;
    }
    return false;
  }

  /** The paths of the current version that the payload no longer has, its parent directories excepted. */
  private pathsToRemove(payload: Payload, oldTsPath: string): Set<string> {
    let old: string[];
    try {
      old = walkRelative(oldTsPath);
    } catch (e) {
      if (errorCode(e) === "ENOENT") return new Set();
      throw e;
    }
    const keep = new Set<string>();
    for (const path of payload.keys()) {
      for (let sub = path; sub !== "." && sub !== ""; sub = posix.dirname(sub)) keep.add(sub);
    }
    return new Set(old.filter((p) => !keep.has(p)));
  }

  /** ioutil.TempDir(targetDir, "..<timestamp>.") then chmod 0755. */
  private newTimestampDir(): string {
    const prefix = timestampPrefix(this.clock.now());
    for (let attempt = 0; ; attempt++) {
      const path = join(this.targetDir, `${prefix}${this.random()}`);
      try {
        mkdirSync(path, 0o700);
      } catch (e) {
        if (errorCode(e) === "EEXIST" && attempt < 10_000) continue;
        throw e;
      }
      chmodSync(path, 0o755);
      return path;
    }
  }

  /** Step 6: parents made, bytes written, then the mode set explicitly so the umask cannot narrow it. */
  private writePayloadToDir(payload: Payload, dir: string): void {
    for (const [path, file] of payload) {
      const full = join(dir, path);
      // The kubelet's MkdirAll(ModePerm) under the usual umask 022: 0755, here made explicit.
      const parent = dirname(full);
      if (parent !== dir) {
        mkdirSync(parent, { recursive: true, mode: 0o755 });
        for (let d = parent; d !== dir; d = dirname(d)) chmodSync(d, 0o755);
      }
      writeFileSync(full, file.data, { mode: file.mode });
      chmodSync(full, file.mode);
      if (file.fsUser !== undefined) lchownSync(full, file.fsUser, -1);
    }
  }

  /** Step 9: `name -> ..data/name` for each top-level element that has no link yet. */
  private createUserVisibleFiles(payload: Payload): void {
    for (const [path, file] of payload) {
      const top = path.split("/")[0]!;
      const visible = join(this.targetDir, top);
      if (exists(visible)) continue;
      symlinkSync(`${DATA_DIR_NAME}/${top}`, visible);
      if (file.fsUser !== undefined) lchownSync(visible, file.fsUser, -1);
    }
  }

  /** Step 10: only top-level links are removed (nested paths went away with the old version). */
  private removeUserVisiblePaths(paths: Set<string>): void {
    let last: unknown;
    for (const p of paths) {
      if (p.includes("/")) continue;
      try {
        unlinkSync(join(this.targetDir, p));
      } catch (e) {
        if (errorCode(e) !== "ENOENT") last = e;
      }
    }
    if (last) throw last;
  }
}
