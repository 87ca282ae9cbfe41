// The host's mount table, read from /proc/self/mountinfo, and unmount: what the volume manager needs
// to leave no mount behind (a removed pod's tmpfs, what a killed agent left). A minimal reader of its
// own (i15-manager): the content helper's mount.ts mounts; this only finds and unmounts.
import { execFile } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { resolve, sep } from "node:path";
import { promisify } from "node:util";
import type { MountTable } from "./types";

const run = promisify(execFile);

/**
 * The mount points listed in mountinfo text (proc(5): the fifth field, with space, tab, newline and
 * backslash written as octal escapes \\040, \\011, \\012, \\134).
 */
export function parseMountPoints(mountinfo: string): string[] {
  const out: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 5) continue;
    out.push(fields[4]!.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

/** The mount points at `dir` or below it, deepest first (children are unmounted before their parent). */
export function mountPointsUnder(mountPoints: readonly string[], dir: string): string[] {
  const root = resolve(dir);
  const under = mountPoints.filter((m) => m === root || m.startsWith(root + sep));
  return [...new Set(under)].sort((a, b) => b.length - a.length);
}

/** /proc/self/mountinfo and umount(8). */
export class ProcMountTable implements MountTable {
  constructor(private readonly mountinfoPath = "/proc/self/mountinfo") {}

  mountPointsUnder(dir: string): string[] {
    let text: string;
    try {
      text = readFileSync(this.mountinfoPath, "utf8");
    } catch {
      return [];
    }
    // mountinfo lists real paths: a root dir reached through a link (/var/lib → /data/var/lib) is
    // compared as the kernel names it.
    let real = dir;
    try {
      real = realpathSync(dir);
    } catch {
      /* gone: compared as given */
    }
    return mountPointsUnder(parseMountPoints(text), real);
  }

  async unmount(path: string): Promise<void> {
    try {
      await run("umount", [path]);
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim();
      throw new Error(`umount ${path}: ${stderr || (err as Error).message}`);
    }
  }
}
