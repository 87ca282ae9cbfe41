import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { lintManifest, type Finding } from "../../src/lint";

const ETCD = readFileSync(join(import.meta.dir, "../fixtures/lint/valid/etcd.yaml"), "utf8");

const pod = (spec: string, meta = "  name: web\n"): string => `apiVersion: v1\nkind: Pod\nmetadata:\n${meta}spec:\n${spec}`;
const APP = "  containers:\n  - name: app\n    image: nginx:1.27\n";
const rules = (findings: Finding[]): string[] => findings.map((f) => f.rule);
const find = (text: string, rule: string, nodeName?: string): Finding => {
  const f = lintManifest(text, "m.yaml", nodeName ? { nodeName } : {}).findings.find((x) => x.rule === rule);
  if (!f) throw new Error(`no ${rule} finding`);
  return f;
};

describe("errors carry the kubelet's wording", () => {
  test("validation errors are field.Error strings", () => {
    const f = find(pod(`${APP}  restartPolicy: Sometimes\n`), "invalid-pod-spec");
    expect(f.message).toBe(`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`);
    expect([f.line, f.column, f.endLine, f.endColumn]).toEqual([9, 18, 9, 27]);
  });

  test("API references use the kubelet's sentence", () => {
    expect(find(pod(`  serviceAccountName: web\n${APP}`), "static-pod-api-reference").message).toBe("static pods may not reference serviceaccounts");
  });

  test("the name is validated with the node suffix when the node is known", () => {
    const name = "a".repeat(250);
    const text = pod(APP, `  name: ${name}\n`);
    expect(rules(lintManifest(text, "m.yaml").findings)).not.toContain("name-with-node-suffix");
    const f = find(text, "name-with-node-suffix", "node-1");
    expect(f.message).toBe(`metadata.name: Invalid value: "${name}-node-1": must be no more than 253 characters`);
    // A name invalid on its own is invalid-metadata, with or without a node.
    expect(find(pod(APP, "  name: Web\n"), "invalid-metadata", "n").message).toStartWith(
      `metadata.name: Invalid value: "Web-n": a lowercase RFC 1123 subdomain`,
    );
    expect(find(pod(APP, "  name: Web\n"), "invalid-metadata").message).toStartWith(`metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain`);
  });
});

describe("warnings", () => {
  test("an unknown field is shown at its key, with the field it was probably meant to be", () => {
    const f = find(pod(`${APP}    imagePullPolcy: Always\n`), "unknown-field");
    expect([f.line, f.column, f.endColumn]).toEqual([9, 5, 19]);
    expect(f.message).toBe(`spec.containers[0].imagePullPolcy: unknown field; the kubelet drops it (did you mean "imagePullPolicy"?)`);
    // No suggestion for a word that is not a typo of a field.
    expect(find(pod(`${APP}    flavour: vanilla\n`), "unknown-field").message).toBe("spec.containers[0].flavour: unknown field; the kubelet drops it");
  });

  test("YAML 1.1: `hostNetwork: yes` is true, as the kubelet reads it", () => {
    const f = find(pod(`  hostNetwork: yes\n${APP}`), "host-namespaces");
    expect(f.message).toBe("the pod shares the host's network namespace");
  });

  test("control-plane pods are exempt from what they cannot meet, not from the rest", () => {
    expect(lintManifest(ETCD, "etcd.yaml").findings).toEqual([]);
    const latest = lintManifest(ETCD.replace("registry.k8s.io/etcd:3.5.15-0", "registry.k8s.io/etcd"), "etcd.yaml").findings;
    expect(rules(latest)).toEqual(["latest-tag"]);
  });

  test("a digest pins an image even without a tag", () => {
    const digest = `registry.example.com/app@sha256:${"a".repeat(64)}`;
    expect(rules(lintManifest(pod(APP.replace("nginx:1.27", digest)), "m.yaml").findings)).not.toContain("latest-tag");
  });
});

describe("lint.nodeagent.io/ignore", () => {
  const annotated = (value: string): string => pod(`  hostPID: true\n${APP}`, `  name: web\n  annotations:\n    lint.nodeagent.io/ignore: "${value}"\n`);

  test("turns the listed rules off for this pod only", () => {
    const all = rules(lintManifest(annotated(""), "m.yaml").findings);
    expect(all).toContain("host-namespaces");
    expect(all).toContain("missing-resources");
    const some = rules(lintManifest(annotated(" host-namespaces , missing-resources"), "m.yaml").findings);
    expect(some).not.toContain("host-namespaces");
    expect(some).not.toContain("missing-resources");
    expect(some).toContain("run-as-non-root");
  });

  test("an unknown rule id is reported at the annotation", () => {
    const f = find(annotated("host-namespace"), "invalid-ignore-annotation");
    expect(f.message).toBe(`unknown rule "host-namespace" in the lint.nodeagent.io/ignore annotation`);
    expect([f.line, f.field]).toEqual([6, "metadata.annotations[lint.nodeagent.io/ignore]"]);
  });
});

test("excerpts hold the lines findings point at, and metadata.name's", () => {
  const report = lintManifest(pod(`${APP}    imagePullPolcy: Always\n`), "m.yaml");
  expect(report.excerpts[9]).toBe("    imagePullPolcy: Always");
  expect(report.excerpts[4]).toBe("  name: web");
  expect(report.pod).toEqual({ namespace: "default", name: "web", at: { line: 4, column: 9, endLine: 4, endColumn: 12 } });
});
