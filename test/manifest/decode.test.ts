import { describe, expect, test } from "bun:test";
import { decodeDocument, KUBELET_EMPTY_MANIFEST, MAX_MANIFEST_BYTES, parseFieldPath } from "../../src/manifest/decode";

function ok(text: string): { value: unknown; positionOf(field: string): { line: number; column: number } } {
  const r = decodeDocument(text, "m.yaml");
  if (!r.ok) throw new Error(`expected to decode: ${JSON.stringify(r.errors)}`);
  return r;
}

function errors(text: string): Array<[number, number, string]> {
  const r = decodeDocument(text, "m.yaml");
  if (r.ok) throw new Error("expected errors");
  for (const e of r.errors) expect(e.file).toBe("m.yaml");
  return r.errors.map((e) => [e.line, e.column, e.message]);
}

describe("decodeDocument: YAML 1.1 like the kubelet", () => {
  test("yes/on/y are booleans, 0644 is octal, timestamps stay strings", () => {
    const { value } = ok("a: yes\nb: on\nc: y\nd: 0644\ne: 2024-01-01\nf: 1_000\ng: 'yes'\n");
    expect(value).toEqual({ a: true, b: true, c: true, d: 420, e: "2024-01-01", f: 1000, g: "yes" });
  });

  test("JSON is YAML", () => {
    const { value } = ok(`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","ports":[{"containerPort":80}]}]}}`);
    expect(value).toEqual({ apiVersion: "v1", kind: "Pod", spec: { containers: [{ name: "a", ports: [{ containerPort: 80 }] }] } });
  });

  test("anchors, aliases and merge keys", () => {
    const { value } = ok("base: &b {x: 1}\nm:\n  <<: *b\n  z: 2\n");
    expect(value).toEqual({ base: { x: 1 }, m: { x: 1, z: 2 } });
  });

  test("a key `y` or `n` is a boolean too, as go-yaml v2 resolves it", () => {
    expect(ok("y: 1\nn: 2\n").value).toEqual({ true: 1, false: 2 });
  });
});

describe("decodeDocument: errors", () => {
  test("an empty file, or only comments, is an empty manifest", () => {
    for (const text of ["", "\n\n", "# nothing here\n", "---\n"]) {
      const [e] = errors(text);
      expect(e![2]).toBe(`empty manifest (the kubelet says: ${KUBELET_EMPTY_MANIFEST})`);
      expect(e![2]).toContain("couldn't parse as pod(Object 'Kind' is missing in 'null')");
    }
  });

  test("a second document is an error at the line where it starts", () => {
    const text = "a: 1\nb: 2\n---\nc: 3\n";
    expect(errors(text)).toEqual([[3, 1, "multi-document manifests are not supported: the kubelet reads only the first document; found another at line 3"]]);
  });

  test("every further document is reported; empty ones are not", () => {
    const text = "a: 1\n---\n# just a comment\n---\nb: 2\n---\nc: 3\n---\n";
    expect(errors(text).map((e) => e[0])).toEqual([4, 6]);
  });

  test("a leading --- and a trailing --- are fine", () => {
    expect(ok("---\na: 1\n---\n").value).toEqual({ a: 1 });
  });

  test("duplicate keys are reported where the second one is", () => {
    expect(errors("metadata:\n  name: a\n  name: b\n")).toEqual([
      [3, 3, `duplicate key "name" (the kubelet's YAML decoder would silently keep only one of them)`],
    ]);
  });

  test("keys that become the same JSON key collide", () => {
    expect(errors("a:\n  yes: 1\n  true: 2\n")).toEqual([[3, 3, `duplicate key "true" (the kubelet's YAML decoder would silently keep only one of them)`]]);
  });

  test("duplicate keys in large mappings are found in linear time", () => {
    const lines = Array.from({ length: 40000 }, (_, i) => `  k${i}: v`);
    lines.push("  k17: again");
    const started = performance.now();
    const errs = errors(`m:\n${lines.join("\n")}\n`);
    // yaml's own uniqueKeys check took over 10 s here.
    expect(performance.now() - started).toBeLessThan(4000);
    expect(errs).toEqual([[40002, 3, `duplicate key "k17" (the kubelet's YAML decoder would silently keep only one of them)`]]);
  });

  test("syntax errors carry line and column", () => {
    const errs = errors("spec:\n  containers:\n  - name: a\n    image: [b\n");
    expect(errs.length).toBeGreaterThan(0);
    expect(errs[0]![2]).toStartWith("invalid YAML: ");
    expect(errs[0]![0]).toBeGreaterThanOrEqual(4);
  });

  test("a tab used as indentation", () => {
    const errs = errors("spec:\n\tcontainers: []\n");
    expect(errs[0]![0]).toBe(2);
  });

  test("over 10 MB is refused before parsing", () => {
    const text = `a: "${"x".repeat(MAX_MANIFEST_BYTES)}"\n`;
    const started = performance.now();
    const errs = errors(text);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(errs).toEqual([[1, 1, `manifest is ${MAX_MANIFEST_BYTES + 6} bytes; the kubelet reads at most 10485760 bytes (maxConfigLength, 10 MB)`]]);
  });

  test("a recursive alias is an error, not a cycle", () => {
    const [e] = errors("a: &x [*x]\n");
    expect(e![2]).toContain("recursive alias");
  });

  test("an alias bomb is refused", () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      lines.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const r = decodeDocument(lines.join("\n") + "\n", "bomb.yaml");
    expect(r.ok).toBe(false);
  });

  test("binary garbage and deep nesting never throw", () => {
    const garbage = Array.from({ length: 4096 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join("");
    for (const text of [garbage, "\u0000\u0001\u0002", "[".repeat(50000), "{a: ".repeat(20000), "- ".repeat(20000) + "x", ":\n:\n: :", "\uFEFFa: 1"]) {
      const r = decodeDocument(text, "g.bin");
      const lineCount = text.split("\n").length;
      if (!r.ok) {
        for (const e of r.errors) {
          expect(e.line).toBeGreaterThanOrEqual(1);
          expect(e.line).toBeLessThanOrEqual(lineCount);
          expect(e.column).toBeGreaterThanOrEqual(1);
        }
      }
    }
  });
});

describe("positionOf", () => {
  const text = [
    "apiVersion: v1", // 1
    "kind: Pod", // 2
    "metadata:", // 3
    "  name: web", // 4
    "  labels:", // 5
    "    app.kubernetes.io/name: web", // 6
    "spec:", // 7
    "  containers:", // 8
    "  - name: app", // 9
    "    image: busybox", // 10
    "    ports:", // 11
    "    - containerPort: 80", // 12
    "    resources:", // 13
    "      limits: {cpu: 500m}", // 14
    "    env:", // 15
    "", // 16
  ].join("\n");

  test("a field maps to the start of its value", () => {
    const { positionOf } = ok(text);
    expect(positionOf("metadata.name")).toEqual({ line: 4, column: 9 });
    expect(positionOf("spec.containers[0].image")).toEqual({ line: 10, column: 12 });
    expect(positionOf("spec.containers[0].ports[0].containerPort")).toEqual({ line: 12, column: 22 });
    expect(positionOf("spec.containers[0].resources.limits[cpu]")).toEqual({ line: 14, column: 21 });
    expect(positionOf("metadata.labels[app.kubernetes.io/name]")).toEqual({ line: 6, column: 29 });
  });

  test("a missing field falls back to its nearest existing parent", () => {
    const { positionOf } = ok(text);
    expect(positionOf("spec.containers[0].imagePullPolicy")).toEqual({ line: 9, column: 5 });
    expect(positionOf("spec.containers[3].image")).toEqual({ line: 9, column: 3 });
    expect(positionOf("spec.volumes[0].name")).toEqual({ line: 8, column: 3 });
    expect(positionOf("")).toEqual({ line: 1, column: 1 });
  });

  test("a key without a value maps to the key", () => {
    const { positionOf } = ok(text);
    expect(positionOf("spec.containers[0].env")).toEqual({ line: 15, column: 5 });
    expect(positionOf("spec.containers[0].env[0].name")).toEqual({ line: 15, column: 5 });
  });

  test("fields reached through a merge key", () => {
    const { positionOf } = ok("base: &b\n  image: x\nc:\n  <<: *b\n  name: y\n");
    expect(positionOf("c.image")).toEqual({ line: 2, column: 10 });
    expect(positionOf("c.name")).toEqual({ line: 5, column: 9 });
  });

  test("parseFieldPath", () => {
    expect(parseFieldPath("spec.containers[0].resources.limits[cpu]")).toEqual(["spec", "containers", 0, "resources", "limits", "cpu"]);
    expect(parseFieldPath("metadata.labels[app.kubernetes.io/name]")).toEqual(["metadata", "labels", "app.kubernetes.io/name"]);
    expect(parseFieldPath("items[2]")).toEqual(["items", 2]);
    expect(parseFieldPath("")).toEqual([]);
  });
});
