// The benches' baseline binary comes from --baseline only, and its absence is said, not guessed.
import { expect, test } from "bun:test";
import { baselineFromArgs } from "../../bench/baseline";

test("no --baseline: no path, and a note that says the build is measured alone", () => {
  const b = baselineFromArgs(["--minutes", "5"]);
  expect(b.path).toBeUndefined();
  expect(b.note).toContain("none given");
});

test("--baseline PATH and --baseline=PATH name an existing file, made absolute", () => {
  expect(baselineFromArgs(["--baseline", "package.json"]).path).toBe(`${process.cwd()}/package.json`);
  expect(baselineFromArgs(["--baseline=package.json"]).note).toBe(`baseline: ${process.cwd()}/package.json`);
});

test("a baseline that does not exist, or a flag without a value, is an error", () => {
  expect(() => baselineFromArgs(["--baseline", "/nonexistent/nodeagent-before"])).toThrow("no such file");
  expect(() => baselineFromArgs(["--baseline"])).toThrow("needs the path");
});
