// The two volume kinds that need no API object and no payload: emptyDir on disk and hostPath (the
// kubelet's pkg/volume/emptydir and pkg/volume/hostpath), as VolumePlugins. emptyDir with
// medium: Memory (a tmpfs) is the content plugins' (i15-content): this one refuses it, so that a node
// without them says so instead of putting a memory volume on disk.
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import type { Pod, Volume } from "kubernetes-types/core/v1";
import type { VolumePlugin } from "./types";

/** emptyDir on the node's disk: a folder of mode 0777 (the kubelet's `perm`), kept across agent restarts. */
export class EmptyDirPlugin implements VolumePlugin {
  readonly name = "kubernetes.io/empty-dir";
  readonly requiresRemount = false;

  canSupport(v: Volume): boolean {
    return v.emptyDir !== undefined && (v.emptyDir.medium ?? "") === "";
  }

  async setUp(_pod: Pod, _v: Volume, dir: string): Promise<string> {
    mkdirSync(dir, { recursive: true, mode: 0o777 });
    // The umask cut the mode: set it as the kubelet's setupDir does.
    if ((statSync(dir).mode & 0o777) !== 0o777) chmodSync(dir, 0o777);
    return dir;
  }

  async tearDown(dir: string): Promise<void> {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What each hostPath `type` requires of the path (the kubelet's hostPathTypeChecker), with its message. */
const TYPE_CHECKS: Record<string, { test: (s: Stats) => boolean; what: string }> = {
  Directory: { test: (s) => s.isDirectory(), what: "a directory" },
  File: { test: (s) => s.isFile(), what: "a file" },
  Socket: { test: (s) => s.isSocket(), what: "a socket file" },
  CharDevice: { test: (s) => s.isCharacterDevice(), what: "a character device" },
  BlockDevice: { test: (s) => s.isBlockDevice(), what: "a block device" },
};

/**
 * hostPath: the author's own path, checked against its `type` (DirectoryOrCreate and FileOrCreate
 * create it, mode 0755 / 0644 as the kubelet's; "" checks nothing). Nothing to tear down: the path is
 * the host's.
 */
export class HostPathPlugin implements VolumePlugin {
  readonly name = "kubernetes.io/host-path";
  readonly requiresRemount = false;

  canSupport(v: Volume): boolean {
    return v.hostPath !== undefined;
  }

  async setUp(_pod: Pod, v: Volume, _dir: string): Promise<string> {
    const { path, type = "" } = v.hostPath!;
    const stat = () => {
      try {
        return statSync(path);
      } catch {
        return undefined;
      }
    };
    if (type === "DirectoryOrCreate") {
      // 0777 as the agent made it before the volume manager (the kubelet uses 0755).
      if (!stat()) mkdirSync(path, { recursive: true, mode: 0o777 });
      else if (!stat()!.isDirectory()) throw new Error(`hostPath type check failed: ${path} is not a directory`);
    } else if (type === "FileOrCreate") {
      if (!stat()) writeFileSync(path, "", { mode: 0o644, flag: "a" });
      else if (!stat()!.isFile()) throw new Error(`hostPath type check failed: ${path} is not a file`);
    } else if (TYPE_CHECKS[type]) {
      const s = stat();
      if (!s || !TYPE_CHECKS[type].test(s)) throw new Error(`hostPath type check failed: ${path} is not ${TYPE_CHECKS[type].what}`);
    }
    return path;
  }

  async tearDown(): Promise<void> {}
}
