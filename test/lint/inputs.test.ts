import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InputError, isBackupName, selectInputs } from "../../src/lint";

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "lint-inputs-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("selectInputs", () => {
  const root = tree({
    "b.yaml": "x",
    "a.yml": "x",
    "notes.txt": "x",
    ".hidden.yaml": "x",
    "etcd.yaml~": "x",
    "sub/c.yaml": "x",
    "sub/.d/e.yaml": "x",
    "sub/f.json": "x",
  });
  const rel = (paths: string[]): string[] => paths.map((p) => p.slice(root.length + 1));

  test("a manifest directory: every non-dot file, sorted, any extension, subdirectories reported not read", () => {
    const s = selectInputs([root]);
    expect(rel(s.inputs.map((i) => i.path))).toEqual(["a.yml", "b.yaml", "etcd.yaml~", "notes.txt"]);
    expect(s.findings.map((f) => `${f.rule} ${f.file.slice(root.length + 1)}`)).toEqual(["ignored-directory sub", "backup-file etcd.yaml~"]);
  });

  test("--recursive: YAML and JSON files only, dot-directories skipped", () => {
    const s = selectInputs([root], { recursive: true });
    expect(rel(s.inputs.map((i) => i.path))).toEqual(["a.yml", "b.yaml", "sub/c.yaml", "sub/f.json"]);
    expect(s.findings).toEqual([]);
  });

  test("files are taken as given, once; - is standard input under its name", () => {
    const s = selectInputs([join(root, "notes.txt"), "-", join(root, "notes.txt")], { stdinName: "pod.yaml" });
    expect(s.inputs).toEqual([
      { path: join(root, "notes.txt"), display: join(root, "notes.txt") },
      { path: "-", display: "pod.yaml" },
    ]);
  });

  test("a missing path is an InputError", () => {
    expect(() => selectInputs([join(root, "nope")])).toThrow(new InputError(`${join(root, "nope")}: no such file or directory`));
  });
});

test("backup and editor names", () => {
  for (const name of ["kube-apiserver.yaml.bak", "etcd.yaml~", "x.yaml.orig", "x.yaml.swp", "x.yaml.dpkg-old", "#x.yaml#", "x.yaml.rpmsave", "x.YAML.BAK"]) {
    expect(isBackupName(name)).toBe(true);
  }
  for (const name of ["kube-apiserver.yaml", "etcd.json", "backup.yaml", "old-etcd.yaml"]) expect(isBackupName(name)).toBe(false);
});
