import { describe, expect, test } from "bun:test";
import { parseManifest } from "../../src/manifest";

const TEXT = `apiVersion: v1
kind: Pod
metadata:
  name: web
  name: web2
spec:
  containers:
  - name: app
    ports: [{containerPort: 80}]
    env:
    -
---
kind: Other
`;

describe("parseManifest", () => {
  for (const fastPath of [true, false]) {
    test(`problems with codes and ranges; the first document still decoded (fastPath ${fastPath})`, () => {
      const p = parseManifest(TEXT, { fastPath });
      expect(p.problems.map((x) => [x.code, x.line, x.column, x.endLine, x.endColumn])).toEqual([
        ["duplicate-key", 5, 3, 5, 7],
        ["multiple-documents", 12, 1, 12, 4],
      ]);
      expect((p.value as { metadata: { name: string } }).metadata.name).toBe("web2");
    });
  }

  test("locate: a value, a key, a collection by its key, a list item by its first line, a missing field by its parent", () => {
    const p = parseManifest("a:\n  b: hello\n  c:\n    d: 1\n  e:\n  - x: 1\n    y: 2\n");
    expect(p.locate("a.b")).toEqual({ line: 2, column: 6, endLine: 2, endColumn: 11 });
    expect(p.locate("a.b", "key")).toEqual({ line: 2, column: 3, endLine: 2, endColumn: 4 });
    expect(p.locate("a.c")).toEqual({ line: 3, column: 3, endLine: 3, endColumn: 4 });
    expect(p.locate("a.e[0]")).toEqual({ line: 6, column: 5, endLine: 6, endColumn: 9 });
    expect(p.locate("a.e[0].z")).toEqual({ line: 6, column: 5, endLine: 6, endColumn: 9 });
    expect(p.locate("a.nothing.deeper")).toEqual({ line: 1, column: 1, endLine: 1, endColumn: 2 });
  });

  test("a syntax error has no value but a range", () => {
    const p = parseManifest("a: [1, 2\n");
    expect(p.value).toBeUndefined();
    expect(p.problems[0]!.code).toBe("syntax");
  });
});
