import { describe, expect, test } from "bun:test";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";
import { loadStaticPods, loadStaticPodsWithLocalObjects } from "../../src/manifest/load";
import { formatManifestError, type LoadResult, type ManifestError, type PodOrigin } from "../../src/manifest/types";
import { ETCD_YAML, FILE_ORIGIN } from "./fixtures";

function pods(text: string, origin: PodOrigin = FILE_ORIGIN) {
  const r = loadStaticPods(text, origin);
  if (!r.ok) throw new Error(`expected pods, got:\n${r.errors.map(formatManifestError).join("\n")}`);
  return r.pods;
}

function errorsOf(r: LoadResult): ManifestError[] {
  if (r.ok) throw new Error("expected errors");
  return r.errors;
}

/** Errors as "line:col field: message" for compact exact comparisons. */
function located(text: string, origin: PodOrigin = FILE_ORIGIN): string[] {
  return errorsOf(loadStaticPods(text, origin)).map((e) => `${e.line}:${e.column} ${e.field}: ${e.message}`);
}

const BASE = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: app
    image: busybox:1.36
    ports:
    - containerPort: 80
`;

describe("loadStaticPods: a kubeadm etcd manifest", () => {
  test("loads as etcd-node1, bound, annotated and defaulted", () => {
    const [pod, ...rest] = pods(ETCD_YAML);
    expect(rest).toEqual([]);
    expect(pod!.metadata!.name).toBe("etcd-node1");
    expect(pod!.metadata!.namespace).toBe("kube-system");
    expect(pod!.metadata!.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod!.metadata!.annotations![CONFIG_HASH_ANNOTATION]).toBe(pod!.metadata!.uid!);
    expect(pod!.metadata!.annotations![CONFIG_SOURCE_ANNOTATION]).toBe("file");
    expect(pod!.metadata!.annotations!["kubeadm.kubernetes.io/etcd.advertise-client-urls"]).toBe("https://10.0.0.10:2379");
    expect(pod!.spec!.nodeName).toBe("node1");
    expect(pod!.spec!.tolerations).toEqual([{ operator: "Exists", effect: "NoExecute" }]);
    expect(pod!.status).toEqual({ phase: "Pending" });
    expect(pod!.spec!.restartPolicy).toBe("Always");
    expect(pod!.spec!.terminationGracePeriodSeconds).toBe(30);
    const etcd = pod!.spec!.containers[0]!;
    expect(etcd.livenessProbe!.successThreshold).toBe(1);
    expect(etcd.terminationMessagePolicy).toBe("File");
    expect(pod!.spec!.volumes![0]!.hostPath).toEqual({ path: "/etc/kubernetes/pki/etcd", type: "DirectoryOrCreate" });
    // `creationTimestamp: null` is dropped, as Go leaves a null field at its zero value.
    expect(pod!.metadata!.creationTimestamp).toBeUndefined();
  });

  test("the UID is stable across loads and changes with any edit, node or path", () => {
    const uid = pods(ETCD_YAML)[0]!.metadata!.uid;
    expect(pods(ETCD_YAML)[0]!.metadata!.uid).toBe(uid);
    // One character: --name=node1 → --name=node2.
    const edited = ETCD_YAML.replace("--name=node1", "--name=node2");
    expect(edited.length).toBe(ETCD_YAML.length);
    expect(pods(edited)[0]!.metadata!.uid).not.toBe(uid);
    expect(pods(ETCD_YAML, { ...FILE_ORIGIN, nodeName: "node2" })[0]!.metadata!.uid).not.toBe(uid);
    expect(pods(ETCD_YAML, { ...FILE_ORIGIN, location: "/etc/kubernetes/manifests/etcd2.yaml" })[0]!.metadata!.uid).not.toBe(uid);
    // Formatting that does not change the object does not change the UID.
    expect(pods(ETCD_YAML.replace("status: {}\n", "status: {}\n\n# trailing comment\n"))[0]!.metadata!.uid).toBe(uid);
  });

  test("the same manifest as JSON is the same pod", () => {
    const yamlPod = pods(BASE)[0]!;
    const json = JSON.stringify({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web" },
      spec: { containers: [{ name: "app", image: "busybox:1.36", ports: [{ containerPort: 80 }] }] },
    });
    expect(pods(json)[0]).toEqual(yamlPod);
  });
});

describe("loadStaticPods: errors at the offending value", () => {
  test("a port that is not a number", () => {
    expect(located(BASE.replace("containerPort: 80", 'containerPort: "abc"'))).toEqual([
      "10:22 spec.containers[0].ports[0].containerPort: must be an integer, not a string (the kubelet cannot decode the pod)",
    ]);
  });

  test("containers that are not a list", () => {
    const text = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers: "x"
`;
    expect(located(text)).toEqual(["6:15 spec.containers: must be a list, not a string (the kubelet cannot decode the pod)"]);
  });

  test("a missing image points at its container", () => {
    expect(located(BASE.replace("    image: busybox:1.36\n", ""))).toEqual(["7:5 spec.containers[0].image: Required value"]);
  });

  test("a request over its limit", () => {
    const text = `${BASE}    resources:
      limits:
        cpu: 1
      requests:
        cpu: 2
`;
    expect(located(text)).toEqual(['15:9 spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1']);
  });

  test("an unknown restartPolicy", () => {
    const text = `${BASE}  restartPolicy: Sometimes
`;
    expect(located(text)).toEqual(['11:18 spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);
  });

  test("a volume mount of a volume that does not exist", () => {
    const text = `${BASE}    volumeMounts:
    - name: data
      mountPath: /data
`;
    expect(located(text)).toEqual(['12:13 spec.containers[0].volumeMounts[0].name: Not found: "data"']);
  });

  test("a label value that YAML reads as a number", () => {
    const text = BASE.replace("  name: web\n", "  name: web\n  labels:\n    version: 1.10\n");
    expect(located(text)).toEqual(["6:14 metadata.labels[version]: must be a string, not a number (the kubelet cannot decode the pod)"]);
  });

  test("a bad quantity", () => {
    const text = `${BASE}    resources:
      limits:
        memory: 1GB
`;
    expect(located(text)).toEqual([
      `13:17 spec.containers[0].resources.limits[memory]: "1GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    ]);
  });

  test("a service account, which static pods may not reference", () => {
    const text = `${BASE}  serviceAccountName: default
`;
    expect(located(text)).toEqual(["11:23 spec.serviceAccountName: static pods may not reference serviceaccounts"]);
  });

  test("a configMap volume: refused by the kubelet's rule, loaded by the --local-objects loader", () => {
    const text = `${BASE}  volumes:
  - name: cfg
    configMap: { name: settings }
`;
    expect(located(text)).toEqual(["13:16 spec.volumes[0].configMap: static pods may not reference configmaps"]);
    const r = loadStaticPodsWithLocalObjects(text, FILE_ORIGIN);
    expect(r.ok && r.pods[0]!.spec!.volumes![0]!.configMap?.name).toBe("settings");
  });

  test("a name that is too long once the node name is appended", () => {
    const long = "a".repeat(250);
    const errs = located(BASE.replace("name: web", `name: ${long}`));
    expect(errs).toEqual([`4:9 metadata.name: Invalid value: "${long}-node1": must be no more than 253 characters`]);
  });

  test("several errors at once, each at its own place", () => {
    const text = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: App
    image: busybox
    ports:
    - containerPort: 70000
      protocol: tcp
`;
    expect(located(text)).toEqual([
      expect.stringMatching(/^7:11 spec\.containers\[0\]\.name: Invalid value: "App": a lowercase RFC 1123 label/),
      "10:22 spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
      '11:17 spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  test("errors name the file and format like a compiler's", () => {
    const [e] = errorsOf(loadStaticPods(BASE.replace("containerPort: 80", "containerPort: 0"), FILE_ORIGIN));
    expect(formatManifestError(e!)).toBe("/etc/kubernetes/manifests/etcd.yaml:10:22: spec.containers[0].ports[0].containerPort: Required value");
  });
});

describe("loadStaticPods: what is not a Pod", () => {
  test("a Deployment", () => {
    const text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n";
    expect(located(text)).toEqual(['1:13 apiVersion: the kubelet runs only kind Pod in apiVersion v1, not kind "Deployment" in apiVersion "apps/v1"']);
  });

  test("no kind, no apiVersion", () => {
    expect(located("metadata:\n  name: web\n")).toEqual([`1:1 kind: Object 'Kind' is missing (the manifest needs "kind: Pod")`]);
    expect(located("kind: Pod\nmetadata:\n  name: web\n")).toEqual([`1:1 apiVersion: Object 'apiVersion' is missing (the manifest needs "apiVersion: v1")`]);
  });

  test("no name", () => {
    expect(located("apiVersion: v1\nkind: Pod\nmetadata:\n  labels: {a: b}\nspec:\n  containers: []\n")).toEqual([
      "4:3 metadata.name: name is needed for the pod",
    ]);
  });

  test("a scalar or a list", () => {
    expect(located("just a string\n")[0]).toBe("1:1 : a manifest must be a mapping with apiVersion, kind, metadata and spec, not a string");
    expect(located("- a\n- b\n")[0]).toStartWith("1:1 : a manifest must be a mapping");
  });

  test("an empty file", () => {
    expect(located("")).toEqual(["1:1 : empty manifest (the kubelet says: couldn't parse as pod(Object 'Kind' is missing in 'null'))"]);
  });

  test("a second document, at the line where it starts", () => {
    const text = `${BASE}---
apiVersion: v1
kind: Pod
metadata:
  name: other
`;
    expect(located(text)).toEqual(["11:1 : multi-document manifests are not supported: the kubelet reads only the first document; found another at line 11"]);
  });

  test("a PodList only from a URL", () => {
    const list = `apiVersion: v1
kind: PodList
items:
- metadata:
    name: a
  spec:
    containers:
    - name: c
      image: busybox:1
- metadata:
    name: b
  spec:
    containers:
    - name: c
      image: busybox:1
`;
    expect(located(list)).toEqual(["2:7 kind: a PodList is accepted only from a manifest URL; a static pod file holds a single Pod"]);
    const http: PodOrigin = { source: "http", location: "http://127.0.0.1:8080/pods", nodeName: "node1" };
    const got = pods(list, http);
    expect(got.map((p) => p.metadata!.name)).toEqual(["a-node1", "b-node1"]);
    expect(got[0]!.metadata!.uid).not.toBe(got[1]!.metadata!.uid);
    expect(got[0]!.spec!.tolerations).toBeUndefined();
    // One bad item fails the list, with the item in the path.
    expect(located(list.replace("    name: b\n", "    name: B\n"), http)[0]).toStartWith('11:11 items[1].metadata.name: Invalid value: "B-node1"');
  });
});

describe("loadStaticPods: never throws", () => {
  /** A small deterministic PRNG, so that a failure can be replayed. */
  function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  const INSERTS = [
    ":",
    "-",
    " ",
    "\n",
    "[",
    "]",
    "{",
    "}",
    "'",
    '"',
    "a",
    "0",
    "\t",
    "&a",
    "*a",
    "!",
    "#",
    "---\n",
    "<<: ",
    "\u0000",
    "é",
    "- ",
    "null",
    "~",
    "yes",
  ];

  function mutate(text: string, random: () => number): string {
    const at = Math.floor(random() * text.length);
    const lines = text.split("\n");
    const line = Math.floor(random() * lines.length);
    switch (Math.floor(random() * 6)) {
      case 0:
        return text.slice(0, at); // truncated, as a half-written file is
      case 1:
        return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 8));
      case 2:
        return text.slice(0, at) + INSERTS[Math.floor(random() * INSERTS.length)] + text.slice(at);
      case 3:
        lines.splice(line, 0, lines[line] ?? "");
        return lines.join("\n");
      case 4: {
        const other = Math.floor(random() * lines.length);
        [lines[line], lines[other]] = [lines[other] ?? "", lines[line] ?? ""];
        return lines.join("\n");
      }
      default:
        lines[line] = " ".repeat(Math.floor(random() * 6)) + (lines[line] ?? "").trimStart();
        return lines.join("\n");
    }
  }

  test("500 random mutations and truncations of a valid manifest", () => {
    const random = rng(20241121);
    let okCount = 0;
    let errCount = 0;
    for (let i = 0; i < 500; i++) {
      let text = ETCD_YAML;
      const edits = 1 + Math.floor(random() * 3);
      for (let j = 0; j < edits; j++) text = mutate(text, random);
      let result: LoadResult | undefined;
      expect(() => (result = loadStaticPods(text, FILE_ORIGIN))).not.toThrow();
      const lineCount = text.split("\n").length;
      if (result!.ok) {
        okCount++;
        for (const p of result!.pods) expect(p.metadata!.name!.endsWith("-node1")).toBe(true);
      } else {
        errCount++;
        expect(result!.errors.length).toBeGreaterThan(0);
        for (const e of result!.errors) {
          expect(e.file).toBe(FILE_ORIGIN.location);
          expect(e.line).toBeGreaterThanOrEqual(1);
          expect(e.line).toBeLessThanOrEqual(lineCount);
          expect(e.column).toBeGreaterThanOrEqual(1);
          expect(e.message.length).toBeGreaterThan(0);
        }
      }
    }
    // The mutations must exercise both outcomes to mean anything.
    expect(okCount).toBeGreaterThan(10);
    expect(errCount).toBeGreaterThan(100);
  });
});
