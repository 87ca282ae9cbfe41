// The folders the agent may own. The agent runs as root and removes what it does not recognise in
// the folders it owns: the container GC removes the log folders of gone pods from --pod-logs-dir,
// housekeeping the folders of gone pods from <--root-dir>/pods, certificate rotation old pairs from
// --cert-dir. The kubelet hard-codes /var/log/pods and defaults the rest; nodeagent takes them as
// flags (and podLogsDir in --config), so one mistyped flag could point a GC at /etc (issue 24:
// `--pod-logs-dir /etc` removed every folder of /etc within 25 s, `--root-dir /` wrote /pki).
//
// So a folder the agent owns must be given as an absolute path (an empty value no longer means the
// default, a relative one no longer depends on the working directory) and must not be `/` or one of
// the host's system folders below, compared once normalised (`/var/log/pods/..` is /var/log, `//etc/`
// is /etc) and again once the symbolic links of its existing part are resolved (a link to /etc is
// /etc). Sub-folders of these (/var/lib/nodeagent, /var/log/pods, /etc/nodeagent/pki) are fine: the
// agent owns what it makes there.
import { posix } from "node:path";
import { realpathOfExisting } from "./confined-path";

/**
 * `/` and the host's system folders, refused as --root-dir, --pod-logs-dir and --cert-dir (and their
 * --config fields). The one list: extend it here.
 */
export const SYSTEM_FOLDERS: readonly string[] = [
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/root",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
  "/var",
  "/var/lib",
  "/var/log",
];

const SYSTEM_FOLDER_SET: ReadonlySet<string> = new Set(SYSTEM_FOLDERS);

/** An absolute path with `//`, `.` and `..` segments and a trailing `/` taken out ("/var/log/pods/.." → "/var/log"). */
export function normalizeAbsolute(path: string): string {
  const p = posix.normalize(path);
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}

/** The system folder `path` is (once normalised), or undefined. */
export function systemFolderOf(path: string): string | undefined {
  const p = normalizeAbsolute(path);
  return SYSTEM_FOLDER_SET.has(p) ? p : undefined;
}

/**
 * Why `path` cannot be a folder the agent owns (and deletes in), or undefined when it can: empty,
 * relative, with a NUL or a newline, `/` or a system folder of the host (SYSTEM_FOLDERS), lexically or
 * through symbolic links. `example` is a good value to suggest.
 */
export function ownedFolderProblem(path: string, example: string): string | undefined {
  if (path === "") return `must not be empty: give an absolute path such as ${example}`;
  if (path.includes("\0") || path.includes("\n")) return "must not contain a NUL byte or a newline";
  if (!posix.isAbsolute(path)) return `must be an absolute path such as ${example} (not relative to the working directory)`;
  const named = (folder: string) => (folder === "/" ? "/, the root of the host" : `${folder}, a system folder of the host`);
  const why = `the agent removes what it does not recognise in its folders; use a folder of its own such as ${example}`;
  const lexical = systemFolderOf(path);
  if (lexical) return `is ${lexical === path ? "" : "(once normalised) "}${named(lexical)}: ${why}`;
  let real: string;
  try {
    real = realpathOfExisting(path);
  } catch {
    return undefined; // A loop or EACCES: whatever uses the folder reports it.
  }
  const resolved = systemFolderOf(real);
  if (resolved) return `resolves through a symbolic link to ${named(resolved)}: ${why}`;
  return undefined;
}
