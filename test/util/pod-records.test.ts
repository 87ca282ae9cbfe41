// PodRecords: the per-pod checkpoint file the allocation state and the evicted-pods record share.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PodRecords } from "../../src/util";
import { linesLog } from "../fakes/recording-log";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function fileIn(): string {
  const d = mkdtempSync(join(tmpdir(), "pod-records-"));
  dirs.push(d);
  return join(d, "state", "records.json");
}
const decodeNumber = (raw: unknown) => (typeof raw === "number" ? raw : undefined);

describe("PodRecords", () => {
  test("what is set survives a new instance on the same file, 0600, and deletes and prunes are kept too", () => {
    const file = fileIn();
    const a = new PodRecords(file, { what: "test records", decode: decodeNumber });
    a.set("u1", 1);
    a.set("u2", 2);
    a.set("u3", 3);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(a.delete("u1")).toBe(true);
    expect(a.delete("u1")).toBe(false);
    expect(a.prune(new Set(["u2"]))).toBe(true);
    expect(a.prune(new Set(["u2"]))).toBe(false);
    const b = new PodRecords(file, { what: "test records", decode: decodeNumber });
    expect(b.uids()).toEqual(["u2"]);
    expect(b.get("u2")).toBe(2);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ u2: 2 });
  });

  test("nothing is written until something changes", () => {
    const file = fileIn();
    const a = new PodRecords(file, { what: "test records", decode: decodeNumber });
    a.delete("none");
    a.prune(new Set());
    expect(existsSync(file)).toBe(false);
  });

  test("an entry the decoder refuses is dropped, the others kept", () => {
    const file = fileIn();
    new PodRecords(file, { what: "test records", decode: decodeNumber }).set("seed", 0);
    writeFileSync(file, JSON.stringify({ good: 7, bad: "seven", worse: { x: 1 } }));
    const r = new PodRecords(file, { what: "test records", decode: decodeNumber });
    expect(r.uids()).toEqual(["good"]);
  });

  test("a file that is not JSON, or not an object, is said and started without", () => {
    for (const content of ["{not json", "[1,2]", "42", "null"]) {
      const file = fileIn();
      new PodRecords(file, { what: "test records", decode: decodeNumber }).set("seed", 0);
      writeFileSync(file, content);
      const { log, lines } = linesLog();
      const r = new PodRecords(file, { what: "test records", decode: decodeNumber, log });
      expect(r.uids()).toEqual([]);
      expect(lines.some((l) => l.startsWith("warn test records"))).toBe(true);
      // The owner goes on: the next change writes a good file.
      r.set("u", 1);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ u: 1 });
    }
  });

  test("with no file the records live in memory", () => {
    const r = new PodRecords<number>(undefined, { what: "test records", decode: decodeNumber });
    r.set("u", 1);
    expect(r.get("u")).toBe(1);
  });
});
