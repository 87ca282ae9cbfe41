// loadObjects: ConfigMap and Secret files for --local-objects, one or many documents or a v1 List,
// checked as the API server checks them, every error at its file, line, column and field.
import { describe, expect, test } from "bun:test";
import { loadObjects } from "../../src/manifest/objects";
import { formatManifestError } from "../../src/manifest/types";

const errorsOf = (text: string) => {
  const r = loadObjects(text, "/objs/a.yaml");
  if (r.ok) throw new Error("loaded, expected errors");
  return r.errors.map(formatManifestError);
};

describe("loadObjects", () => {
  test("several documents: each object normalised as the API server stores it, with the line it starts on", () => {
    const text = [
      "# config",
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata: {name: cfg}",
      "data: {a: '1'}",
      "binaryData: {b: AAE=}",
      "---",
      "apiVersion: v1",
      "kind: Secret",
      "metadata: {name: s, namespace: prod}",
      "data: {x: eA==}",
      "stringData: {w: why}",
      "---",
      "",
    ].join("\n");
    const r = loadObjects(text, "/objs/a.yaml");
    expect(r).toEqual({
      ok: true,
      objects: [
        {
          line: 2,
          object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default" }, data: { a: "1" }, binaryData: { b: "AAE=" } },
        },
        {
          line: 8,
          object: {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "s", namespace: "prod" },
            type: "Opaque",
            data: { x: "eA==", w: Buffer.from("why").toString("base64") },
          },
        },
      ],
    });
  });

  test("a v1 List and JSON are read too", () => {
    const list = JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } },
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" } },
      ],
    });
    const r = loadObjects(list, "/objs/l.json");
    expect(r.ok && r.objects.map((o) => o.object.metadata?.name)).toEqual(["a", "b"]);
  });

  test("errors name the file, the line in the right document, and the field", () => {
    const text = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata: {name: ok}",
      "---",
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: Bad_Name",
      "data:",
      "  port: 8080",
      "  'a b': x",
    ].join("\n");
    expect(errorsOf(text)).toEqual([
      `/objs/a.yaml:8:9: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      "/objs/a.yaml:10:9: data[port]: must be a string, not a number (quote it)",
      `/objs/a.yaml:11:3: data: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    ]);
  });

  test("only ConfigMap and Secret; keys in both data and binaryData; bad base64; YAML errors; an empty file", () => {
    expect(errorsOf("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n")).toEqual([
      '/objs/a.yaml:2:7: kind: --local-objects serves only kind ConfigMap and Secret in apiVersion v1, not kind "Pod" in apiVersion "v1"',
    ]);
    expect(errorsOf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: a}\nbinaryData: {k: YQ==}\n")).toEqual([
      '/objs/a.yaml:5:14: binaryData: Invalid value: "k": duplicate of key present in data',
    ]);
    expect(errorsOf("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: not-base64!}\n")).toEqual([
      "/objs/a.yaml:4:11: data[k]: must be base64-encoded (illegal base64 data)",
    ]);
    expect(errorsOf("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n---\nkind: [\n")[0]).toMatch(/^\/objs\/a\.yaml:6:1: invalid YAML/);
    expect(errorsOf("# nothing\n")).toEqual(["/objs/a.yaml:1:1: empty file: no ConfigMap or Secret in it"]);
  });
});
