// Which files a lint run reads, chosen as the kubelet chooses them in a manifest directory
// (pkg/kubelet/config/file.go extractFromDir): every entry whose name does not start with a dot, in
// sorted order, whatever its extension, and no recursion into subdirectories. `--recursive` is for
// a repository of manifests instead: it walks every directory (dot-directories excepted) and takes
// only .yaml, .yml and .json files, as kubeconform does.
import { readdirSync, readFileSync, statSync, type Stats } from "node:fs";
import { basename, join } from "node:path";
import { MAX_MANIFEST_BYTES } from "../manifest";
import { ruleById } from "./rules";
import type { Finding } from "./types";

/** A file to lint: its path (or "-" for standard input) and the name findings show. */
export interface ManifestInput {
  path: string;
  display: string;
}

/** A path that cannot be read: the run stops with exit code 2. */
export class InputError extends Error {}

export interface Selection {
  inputs: ManifestInput[];
  /** Findings about the selection itself: backup files, ignored subdirectories. */
  findings: Finding[];
}

/** Names the kubelet would load as pods although nobody meant them to run. */
const BACKUP_NAME = /(?:~|\.(?:bak|backup|orig|old|save|sav|swp|swo|swx|tmp|rej|dpkg-(?:old|new|dist|bak|tmp)|rpmnew|rpmsave|ucf-(?:old|new|dist)))$|^#.*#$/i;
const MANIFEST_EXTENSION = /\.(?:ya?ml|json)$/i;

export function isBackupName(name: string): boolean {
  return BACKUP_NAME.test(name);
}

function fileFinding(rule: string, file: string, message: string): Finding {
  const r = ruleById(rule)!;
  return { file, line: 1, column: 1, endLine: 1, endColumn: 1, field: "", rule, severity: r.severity, message, hint: r.hint };
}

function errnoText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === "ENOENT") return "no such file or directory";
  if (err.code === "EACCES" || err.code === "EPERM") return "permission denied";
  return err.code ?? err.message;
}

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (e) {
    throw new InputError(`${path}: ${errnoText(e)}`);
  }
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    throw new InputError(`${dir}: cannot list the directory: ${errnoText(e)}`);
  }
}

function scanManifestDir(dir: string, selection: Selection): void {
  for (const name of entriesOf(dir)) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    const st = statOf(path);
    if (st.isDirectory()) {
      selection.findings.push(fileFinding("ignored-directory", path, `${path} is a directory; the kubelet does not recurse into it`));
    } else if (st.isFile()) {
      selection.inputs.push({ path, display: path });
    }
  }
}

function scanRepository(dir: string, selection: Selection): void {
  for (const name of entriesOf(dir)) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    const st = statOf(path);
    if (st.isDirectory()) scanRepository(path, selection);
    else if (st.isFile() && MANIFEST_EXTENSION.test(name)) selection.inputs.push({ path, display: path });
  }
}

/** Expands the command's arguments into the files to lint, in order, each once. */
export function selectInputs(args: readonly string[], options: { recursive?: boolean; stdinName?: string } = {}): Selection {
  const selection: Selection = { inputs: [], findings: [] };
  for (const arg of args) {
    if (arg === "-") {
      selection.inputs.push({ path: "-", display: options.stdinName ?? "<stdin>" });
      continue;
    }
    const st = statOf(arg);
    if (st.isDirectory()) {
      if (options.recursive) scanRepository(arg, selection);
      else scanManifestDir(arg, selection);
    } else {
      selection.inputs.push({ path: arg, display: arg });
    }
  }
  const seen = new Set<string>();
  selection.inputs = selection.inputs.filter((i) => (i.path === "-" ? true : !seen.has(i.path) && seen.add(i.path) !== undefined));
  for (const input of selection.inputs) {
    const name = basename(input.path);
    if (input.path !== "-" && isBackupName(name)) {
      selection.findings.push(
        fileFinding("backup-file", input.display, `${name} looks like a backup or editor file, and the kubelet runs it as a pod like any other file`),
      );
    }
  }
  return selection;
}

/** A manifest's text, or its size when it is past the kubelet's 10 MB (it is then not read). */
export type ManifestText = { text: string } | { tooLarge: number };

export function readManifest(input: ManifestInput): ManifestText {
  try {
    if (input.path === "-") return { text: readFileSync(0, "utf8") };
    const st = statSync(input.path);
    if (!st.isFile()) throw new InputError(`${input.path}: not a regular file`);
    if (st.size > MAX_MANIFEST_BYTES) return { tooLarge: st.size };
    return { text: readFileSync(input.path, "utf8") };
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${input.display}: cannot read: ${errnoText(e)}`);
  }
}
