// The one helper every path built from pod data goes through: each traversal shape is refused before
// the disk is touched, and a symbolic link inside the root that points out is refused for mkdir and rm.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertInside, confinedPath, mkdirInside, PathEscapeError, pathSegmentProblem, removeInside } from "../../src/util/confined-path";

const base = mkdtempSync(join(tmpdir(), "confined-path-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A fresh root inside `base`, with a sentinel folder and file beside it that nothing may touch. */
function layout(name: string): { root: string; victim: string; sentinel: string } {
  const dir = join(base, name);
  const root = join(dir, "root");
  const victim = join(dir, "victim");
  mkdirSync(root, { recursive: true });
  mkdirSync(victim, { recursive: true });
  const sentinel = join(victim, "keep.txt");
  writeFileSync(sentinel, "keep");
  return { root, victim, sentinel };
}

describe("confinedPath", () => {
  test("joins plain segments under the root; a relative root stays relative", () => {
    expect(confinedPath("/var/lib/nodeagent/pods", "0b9c5d1e", "volumes", "kubernetes.io~empty-dir", "data")).toBe(
      "/var/lib/nodeagent/pods/0b9c5d1e/volumes/kubernetes.io~empty-dir/data",
    );
    expect(confinedPath("/var/log/pods/", "default_web_u1")).toBe("/var/log/pods/default_web_u1");
    expect(confinedPath("nodeagent-unit", "podu1")).toBe("nodeagent-unit/podu1");
    // Dots inside a name are not traversal.
    expect(confinedPath("/r", "a..b", "...", ".hidden", "default_.._u1")).toBe("/r/a..b/.../.hidden/default_.._u1");
  });

  const shapes: [string, string[]][] = [
    ["..", [".."]],
    [".", ["."]],
    ["../../x", ["../../x"]],
    ["/abs", ["/abs"]],
    ["a/b", ["a/b"]],
    ["empty", [""]],
    ["NUL", ["a\0b"]],
    ["a later ..", ["ok", ".."]],
    ["no segment", []],
  ];
  for (const [what, segments] of shapes) {
    test(`refuses ${what}`, () => {
      expect(() => confinedPath("/var/lib/nodeagent/pods", ...segments)).toThrow(PathEscapeError);
    });
  }

  test("pathSegmentProblem says why", () => {
    expect(pathSegmentProblem("..")).toBe('is ".."');
    expect(pathSegmentProblem("a/b")).toBe("contains '/'");
    expect(pathSegmentProblem("a\0")).toBe("contains a NUL byte");
    expect(pathSegmentProblem("")).toBe("is empty");
    expect(pathSegmentProblem("u-1")).toBeUndefined();
  });
});

describe("mkdirInside / removeInside", () => {
  test("make and remove a folder inside the root", () => {
    const { root } = layout("plain");
    const dir = confinedPath(root, "u1", "volumes", "data");
    mkdirInside(root, dir, 0o777);
    expect(existsSync(dir)).toBe(true);
    removeInside(root, confinedPath(root, "u1"));
    expect(existsSync(join(root, "u1"))).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  test("a root that does not exist yet is fine (first start)", () => {
    const { root } = layout("fresh");
    const pods = join(root, "not", "yet");
    mkdirInside(pods, confinedPath(pods, "u1"));
    expect(existsSync(join(pods, "u1"))).toBe(true);
  });

  test("paths that leave the root lexically are refused, the root itself included, and nothing is made or removed", () => {
    const { root, victim, sentinel } = layout("lexical");
    expect(() => mkdirInside(root, join(root, "..", "victim", "new"))).toThrow(PathEscapeError);
    expect(() => mkdirInside(root, "/tmp/elsewhere-confined-test")).toThrow(PathEscapeError);
    expect(() => removeInside(root, join(root, "..", "victim"))).toThrow(PathEscapeError);
    expect(() => removeInside(root, root)).toThrow(PathEscapeError);
    expect(() => removeInside(root, `${root}/.`)).toThrow(PathEscapeError);
    expect(existsSync(join(victim, "new"))).toBe(false);
    expect(existsSync("/tmp/elsewhere-confined-test")).toBe(false);
    expect(existsSync(sentinel)).toBe(true);
    expect(existsSync(root)).toBe(true);
  });

  test("a link inside the root that points out: mkdir through it is refused", () => {
    const { root, victim } = layout("mkdir-link");
    symlinkSync(victim, join(root, "u1"));
    expect(() => mkdirInside(root, confinedPath(root, "u1", "volumes", "data"))).toThrow(PathEscapeError);
    expect(existsSync(join(victim, "volumes"))).toBe(false);
    expect(() => assertInside(root, join(root, "u1", "x"))).toThrow(/resolves to/);
  });

  test("rm -rf through a link on the way out is refused; a link at the target is removed as a link", () => {
    const { root, victim, sentinel } = layout("rm-link");
    symlinkSync(victim, join(root, "u1"));
    // Through the link: <root>/u1/keep.txt is really the victim's file.
    expect(() => removeInside(root, join(root, "u1", "keep.txt"))).toThrow(PathEscapeError);
    expect(existsSync(sentinel)).toBe(true);
    // The link itself: it goes, what it points to stays.
    removeInside(root, join(root, "u1"));
    expect(existsSync(join(root, "u1"))).toBe(false);
    expect(existsSync(sentinel)).toBe(true);
  });

  test("links below the target are not followed by rm -rf", () => {
    const { root, victim, sentinel } = layout("rm-inner-link");
    mkdirSync(join(root, "u1", "volumes"), { recursive: true });
    symlinkSync(victim, join(root, "u1", "volumes", "escape"));
    removeInside(root, join(root, "u1"));
    expect(existsSync(join(root, "u1"))).toBe(false);
    expect(existsSync(sentinel)).toBe(true);
  });

  test("a root that is itself a link (/var/log/pods → /data/logs) works", () => {
    const { root } = layout("linked-root");
    const real = join(root, "real");
    mkdirSync(real);
    const linked = join(root, "linked");
    symlinkSync(real, linked);
    mkdirInside(linked, confinedPath(linked, "default_web_u1"));
    expect(existsSync(join(real, "default_web_u1"))).toBe(true);
    removeInside(linked, confinedPath(linked, "default_web_u1"));
    expect(existsSync(join(real, "default_web_u1"))).toBe(false);
  });
});
