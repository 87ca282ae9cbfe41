import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { STATE_FILE_MODE, writeFileAtomic } from "../../src/util/atomic-file";

const dir = mkdtempSync(join(tmpdir(), "nodeagent-atomic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mode(path: string): number {
  return statSync(path).mode & 0o7777;
}

test("a new state file is 0600, in a directory made for it", () => {
  const path = join(dir, "new", "deeper", "state.json");
  writeFileAtomic(path, '{"a":1}');
  expect(readFileSync(path, "utf8")).toBe('{"a":1}');
  expect(STATE_FILE_MODE).toBe(0o600);
  expect(mode(path)).toBe(0o600);
  expect(readdirSync(join(dir, "new", "deeper"))).toEqual(["state.json"]);
});

test("replacing a 0644 file from an older agent leaves it 0600", () => {
  const path = join(dir, "old.json");
  writeFileSync(path, "old");
  chmodSync(path, 0o644);
  writeFileAtomic(path, "new");
  expect(readFileSync(path, "utf8")).toBe("new");
  expect(mode(path)).toBe(0o600);
});

test("the mode holds whatever the umask, and whatever a leftover temporary file had", () => {
  const path = join(dir, "umask.json");
  writeFileSync(`${path}.tmp`, "half written by a crash");
  chmodSync(`${path}.tmp`, 0o666);
  const old = process.umask(0o000);
  try {
    writeFileAtomic(path, "whole");
  } finally {
    process.umask(old);
  }
  expect(mode(path)).toBe(0o600);
  expect(readFileSync(path, "utf8")).toBe("whole");
  expect(existsSync(`${path}.tmp`)).toBe(false);
});

test("a symlink planted as the temporary file is not followed", () => {
  const victim = join(dir, "victim");
  writeFileSync(victim, "untouched");
  chmodSync(victim, 0o644);
  const path = join(dir, "planted.json");
  symlinkSync(victim, `${path}.tmp`);
  writeFileAtomic(path, "state");
  expect(readFileSync(victim, "utf8")).toBe("untouched");
  expect(mode(victim)).toBe(0o644);
  expect(readFileSync(path, "utf8")).toBe("state");
});

test("another mode when asked, and bytes as well as text", () => {
  const path = join(dir, "shared.bin");
  writeFileAtomic(path, new Uint8Array([1, 2, 3]), 0o644);
  expect(mode(path)).toBe(0o644);
  expect([...readFileSync(path)]).toEqual([1, 2, 3]);
});
