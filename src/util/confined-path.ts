// Paths built from untrusted data (a pod's UID, name or namespace, a volume name) that must stay under
// a root the agent owns: <root-dir>/pods/<uid>/…, <pod-logs-dir>/<ns>_<name>_<uid>, <cgroup-root>/…/pod<uid>.
// The agent runs as root, so one segment such as "..", "../../etc" or "/" would let a manifest make or
// remove folders anywhere on the host (issue 12: a pod with uid "../../../x" had "x" removed with it).
//
// The kubelet relies on API validation of the UID; nodeagent also takes pods from files, a URL and its
// own push API, and adopts runtime objects whose labels any CRI client may have written, so every such
// path is built here and checked twice:
//   1. lexically, before anything touches the disk: each segment is one plain name (not empty, not "."
//      or "..", no "/" and no NUL), and the joined, normalised path is strictly inside the root;
//   2. against the file system, before a mkdir or a removal: symbolic links are resolved in the part of
//      the path that exists (the root included, which may itself be a link: /var/log/pods → /data/logs),
//      so a link planted inside the root that points out of it is refused too.
// A refusal throws PathEscapeError: callers report it and leave the disk alone.
import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path that would leave its root, or a segment that is not one plain name. */
export class PathEscapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PathEscapeError";
  }
}

/** Why `segment` cannot be one component of a confined path, or undefined when it can. */
export function pathSegmentProblem(segment: string): string | undefined {
  if (segment === "") return "is empty";
  if (segment === "." || segment === "..") return `is ${JSON.stringify(segment)}`;
  if (segment.includes("/")) return "contains '/'";
  if (segment.includes("\0")) return "contains a NUL byte";
  return undefined;
}

/** Whether `path` is strictly below `root` (both absolute and normalised). */
function isStrictlyInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * `<root>/<segments…>`, refused (PathEscapeError) when a segment is not one plain name or the result
 * is not strictly inside the root. Purely lexical: nothing is read from the disk, so it also serves
 * paths that are not on this file system (a cgroupfs parent handed to the runtime), and a relative
 * root stays relative (joined, not resolved against the working directory).
 */
export function confinedPath(root: string, ...segments: string[]): string {
  if (segments.length === 0) throw new PathEscapeError(`a path under ${root} needs at least one segment`);
  for (const s of segments) {
    const problem = pathSegmentProblem(s);
    if (problem) throw new PathEscapeError(`path segment ${JSON.stringify(s)} under ${root} ${problem}`);
  }
  const path = join(root, ...segments);
  if (!isStrictlyInside(resolve(root), resolve(path))) throw new PathEscapeError(`${path} is not inside ${root}`);
  return path;
}

/** realpath of the longest existing prefix of `path`, with the rest appended as written. */
export function realpathOfExisting(path: string): string {
  let head = resolve(path);
  const tail: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...tail.reverse());
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // Only a missing component is walked past; anything else (a loop, EACCES) is not guessed at.
      if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
      const parent = dirname(head);
      if (parent === head) return join(head, ...tail.reverse());
      tail.push(basename(head));
      head = parent;
    }
  }
}

/**
 * Refuses (PathEscapeError) a `path` that is not strictly inside `root` once the symbolic links of
 * both, as far as they exist, are resolved.
 */
export function assertInside(root: string, path: string): void {
  const lexical = resolve(path);
  if (!isStrictlyInside(resolve(root), lexical)) throw new PathEscapeError(`${lexical} is not inside ${resolve(root)}`);
  const realRoot = realpathOfExisting(root);
  const real = realpathOfExisting(lexical);
  if (!isStrictlyInside(realRoot, real)) throw new PathEscapeError(`${lexical} resolves to ${real}, which is not inside ${realRoot}`);
}

/** mkdir -p of a folder that must be inside `root` (checked first, links resolved). */
export function mkdirInside(root: string, path: string, mode?: number): void {
  assertInside(root, path);
  mkdirSync(path, { recursive: true, ...(mode === undefined ? {} : { mode }) });
}

/**
 * rm -rf of a path that must be inside `root`. Its parent is resolved with realpath: a link on the
 * way out of the root is refused; a link at the path itself is removed as a link, never followed
 * (as rm -rf does, and so does everything below it).
 */
export function removeInside(root: string, path: string): void {
  const lexical = resolve(path);
  if (!isStrictlyInside(resolve(root), lexical)) throw new PathEscapeError(`${lexical} is not inside ${resolve(root)}`);
  const realRoot = realpathOfExisting(root);
  const target = join(realpathOfExisting(dirname(lexical)), basename(lexical));
  if (!isStrictlyInside(realRoot, target)) throw new PathEscapeError(`${lexical} resolves to ${target}, which is not inside ${realRoot}`);
  rmSync(target, { recursive: true, force: true });
}
