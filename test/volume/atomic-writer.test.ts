import { afterEach, beforeEach, expect, test } from "bun:test";
import {
  lstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeClock } from "../../src/util/clock";
import { AtomicWriter, cleanPayload, PayloadPathError, timestampPrefix, validatePayloadPath } from "../../src/volume/atomic-writer";
import type { Payload } from "../../src/volume/types";

let dir: string;
let clock: FakeClock;
let seq: number;
let writer: AtomicWriter;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "atomic-writer-"));
  clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  seq = 100;
  writer = new AtomicWriter(dir, clock, () => seq++);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const enc = (s: string) => new TextEncoder().encode(s);
const payload = (files: Record<string, string | [string, number]>): Payload =>
  new Map(Object.entries(files).map(([k, v]) => [k, typeof v === "string" ? { data: enc(v), mode: 0o644 } : { data: enc(v[0]), mode: v[1] }]));
const read = (p: string) => readFileSync(join(dir, p), "utf8");
const entries = () => readdirSync(dir).sort();

test("the timestamped directory is named with Go's ..2006_01_02_15_04_05. layout in UTC", () => {
  expect(timestampPrefix(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe("..2026_01_02_03_04_05.");
  expect(timestampPrefix(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toBe("..2026_12_31_23_59_59.");
});

test("layout: version dir 0755, ..data link, top-level links only", () => {
  expect(writer.write(payload({ a: "1", "sub/dir/b": "2" }))).toBe(true);
  expect(entries()).toEqual(["..2026_01_02_03_04_05.100", "..data", "a", "sub"]);
  expect(readlinkSync(join(dir, "..data"))).toBe("..2026_01_02_03_04_05.100");
  expect(statSync(join(dir, "..2026_01_02_03_04_05.100")).mode & 0o7777).toBe(0o755);
  expect(readlinkSync(join(dir, "a"))).toBe("..data/a");
  expect(readlinkSync(join(dir, "sub"))).toBe("..data/sub");
  expect(lstatSync(join(dir, "..2026_01_02_03_04_05.100", "sub", "dir")).isDirectory()).toBe(true);
  expect(read("a")).toBe("1");
  expect(read("sub/dir/b")).toBe("2");
});

test("an update swaps ..data to a new complete version and removes the old one", async () => {
  writer.write(payload({ a: "1", b: "2" }));
  const fd = openSync(join(dir, "a"), "r");
  try {
    await clock.advance(1500);
    expect(writer.write(payload({ a: "one", b: "two" }))).toBe(true);
    // ..data now names the new version; the old one is gone.
    expect(readlinkSync(join(dir, "..data"))).toBe("..2026_01_02_03_04_06.101");
    expect(entries()).toEqual(["..2026_01_02_03_04_06.101", "..data", "a", "b"]);
    expect(read("a")).toBe("one");
    expect(read("b")).toBe("two");
    // A reader that opened the file before the swap keeps reading the old, whole content.
    const buf = Buffer.alloc(8);
    expect(buf.subarray(0, readSync(fd, buf)).toString()).toBe("1");
  } finally {
    closeSync(fd);
  }
});

test("the new version is complete when ..data switches (every file resolvable through it)", () => {
  writer.write(payload({ a: "1" }));
  const before = realpathSync(join(dir, "a"));
  writer.write(payload({ a: "2", b: "3", "c/d": "4" }));
  const target = readlinkSync(join(dir, "..data"));
  expect(realpathSync(join(dir, "a"))).not.toBe(before);
  for (const p of ["a", "b", "c/d"]) expect(realpathSync(join(dir, p)).startsWith(join(realpathSync(dir), target) + "/")).toBe(true);
  expect(read("c/d")).toBe("4");
});

test("removing keys removes their top-level links and their files", () => {
  writer.write(payload({ a: "1", b: "2", "dir/x": "3", "dir/y": "4" }));
  writer.write(payload({ a: "1", "dir/x": "3" }));
  expect(entries().filter((e) => !e.startsWith(".."))).toEqual(["a", "dir"]);
  expect(readdirSync(join(dir, "dir")).sort()).toEqual(["x"]);
  writer.write(payload({}));
  expect(entries().filter((e) => !e.startsWith(".."))).toEqual([]);
  expect(entries()).toHaveLength(2);
});

test("identical content is a no-op: same version dir, same mtime, nothing rewritten", async () => {
  writer.write(payload({ a: "1", "d/b": "2" }));
  const version = readlinkSync(join(dir, "..data"));
  const mtime = statSync(join(dir, version, "a")).mtimeMs;
  await clock.advance(60_000);
  expect(writer.write(payload({ a: "1", "d/b": "2" }))).toBe(false);
  expect(readlinkSync(join(dir, "..data"))).toBe(version);
  expect(statSync(join(dir, version, "a")).mtimeMs).toBe(mtime);
  expect(entries()).toEqual([version, "..data", "a", "d"]);
  // A changed byte is not a no-op.
  expect(writer.write(payload({ a: "1", "d/b": "3" }))).toBe(true);
  expect(readlinkSync(join(dir, "..data"))).not.toBe(version);
});

test("modes are set exactly, whatever the umask", () => {
  const old = process.umask(0o077);
  try {
    writer.write(payload({ open: ["x", 0o644], secret: ["y", 0o400], exec: ["z", 0o755], "n/wide": ["w", 0o666] }));
  } finally {
    process.umask(old);
  }
  const v = join(dir, readlinkSync(join(dir, "..data")));
  expect(statSync(join(v, "open")).mode & 0o7777).toBe(0o644);
  expect(statSync(join(v, "secret")).mode & 0o7777).toBe(0o400);
  expect(statSync(join(v, "exec")).mode & 0o7777).toBe(0o755);
  expect(statSync(join(v, "n/wide")).mode & 0o7777).toBe(0o666);
  expect(statSync(join(v, "n")).mode & 0o7777).toBe(0o755);
});

test("a stale top-level entry the payload no longer has is removed, one it has is kept as a link", () => {
  writer.write(payload({ a: "1", b: "2" }));
  writer.write(payload({ b: "2", c: "3" }));
  expect(() => lstatSync(join(dir, "a"))).toThrow();
  expect(readlinkSync(join(dir, "c"))).toBe("..data/c");
});

test("a ..data_tmp left by a crash does not block the next write", () => {
  writeFileSync(join(dir, "..data_tmp"), "");
  writer.write(payload({ a: "1" }));
  expect(read("a")).toBe("1");
  expect(entries()).not.toContain("..data_tmp");
});

test("bad paths are refused with the kubelet's messages and nothing is written", () => {
  const cases: [string, string][] = [
    ["", `invalid path: must not be empty: ""`],
    ["/etc/passwd", "invalid path: must be relative path: /etc/passwd"],
    ["a/../../b", "invalid path: must not contain '..': a/../../b"],
    ["..", "invalid path: must not contain '..': .."],
    ["..data", "invalid path: must not start with '..': ..data"],
    ["..x/y", "invalid path: must not start with '..': ..x/y"],
    ["x".repeat(256), "invalid path: filenames must be less than or equal to 255 characters"],
    [("y".repeat(200) + "/").repeat(21), "invalid path: must be less than or equal to 4096 characters"],
  ];
  for (const [path, message] of cases) {
    expect(() => validatePayloadPath(path)).toThrow(new PayloadPathError(message));
    expect(() => writer.write(payload({ ok: "1", [path]: "x" }))).toThrow(message);
  }
  expect(entries()).toEqual([]);
  // Names that only look like the reserved ones are fine, and paths are cleaned.
  expect([...cleanPayload(payload({ "a//b/./c": "1", ".hidden": "2", "x..y": "3" })).keys()]).toEqual(["a/b/c", ".hidden", "x..y"]);
});
