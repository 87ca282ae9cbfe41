// Pod identity from untrusted sources (issue 12): URL and pushed pods get the agent's hash whatever
// uid they carry; a file pod keeps its uid only when it can name a folder, else it is a manifest error
// at metadata.uid with its line and column.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { loadStaticPods } from "../../src/manifest/load";
import { podUIDProblem, staticPodUID, toStaticPod } from "../../src/manifest/static-pod";
import { formatManifestError, type PodOrigin } from "../../src/manifest/types";

const FILE: PodOrigin = { source: "file", location: "/etc/kubernetes/manifests/web.yaml", nodeName: "node1" };
const URL_ORIGIN: PodOrigin = { source: "http", location: "http://127.0.0.1:8080/pods.yaml", nodeName: "node1" };
const PUSH: PodOrigin = { source: "push", location: "POST /pods", nodeName: "node1" };

const manifest = (uid?: string, image = "busybox:1.36") => `apiVersion: v1
kind: Pod
metadata:
  name: web
${uid === undefined ? "" : `  uid: ${JSON.stringify(uid)}\n`}spec:
  containers:
  - name: app
    image: ${image}
`;

function loaded(text: string, origin: PodOrigin): Pod {
  const r = loadStaticPods(text, origin);
  if (!r.ok) throw new Error(r.errors.map(formatManifestError).join("\n"));
  return r.pods[0]!;
}

describe("podUIDProblem", () => {
  test("accepts API server UUIDs, the static pod hash and short lowercase names", () => {
    for (const uid of ["0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f", "8c0a3f9e2b7d4c1a6e5f0b9d8c7a6e5f", "u1", "a", "x".repeat(128)])
      expect(podUIDProblem(uid)).toBeUndefined();
  });

  test("refuses what could leave a folder or is not a UID", () => {
    for (const uid of ["", ".", "..", "../../../tmp/victim", "/abs", "a/b", "a\0b", "UPPER", "a_b", "a.b", "-a", "a-", "x".repeat(129), " a"]) {
      expect(podUIDProblem(uid)).toBeDefined();
    }
    expect(podUIDProblem("x".repeat(129))).toBe("must have at most 128 characters");
  });
});

describe("the UID of URL and pushed pods is derived, never the client's", () => {
  for (const origin of [URL_ORIGIN, PUSH]) {
    test(`${origin.source}: a written uid is ignored, and changes nothing`, () => {
      const plain = loaded(manifest(), origin);
      for (const uid of ["../../../tmp/victim", "..", "0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f"]) {
        const pod = loaded(manifest(uid), origin);
        expect(pod.metadata!.uid).toBe(plain.metadata!.uid!);
        expect(pod.metadata!.uid).toMatch(/^[0-9a-f]{32}$/);
        expect(pod.metadata!.annotations!["kubernetes.io/config.hash"]).toBe(plain.metadata!.uid!);
      }
      // Still a hash of the content: an edit is a new pod.
      expect(loaded(manifest(undefined, "busybox:1.37"), origin).metadata!.uid).not.toBe(plain.metadata!.uid!);
    });
  }

  test("a URL pod and a pushed pod of the same text never share a UID with each other or a file pod", () => {
    const uids = [FILE, URL_ORIGIN, PUSH].map((o) => loaded(manifest(), o).metadata!.uid);
    expect(new Set(uids).size).toBe(3);
  });

  test("toStaticPod: the hash is taken without the ignored uid", () => {
    const pod: Pod = { metadata: { name: "web", uid: "taken-over" }, spec: { containers: [{ name: "c", image: "i" }] } };
    const { uid: _u, ...rest } = pod.metadata!;
    expect(toStaticPod(pod, PUSH).metadata!.uid).toBe(staticPodUID({ ...pod, metadata: rest }, PUSH));
    expect(toStaticPod(pod, { ...PUSH, source: "api" }).metadata!.uid).toBe("taken-over");
  });
});

describe("file pods keep a written uid, if it is valid", () => {
  test("a valid uid is kept, as the kubelet does", () => {
    expect(loaded(manifest("0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f"), FILE).metadata!.uid).toBe("0b9c5d1e-7f3a-4e2b-9c8d-1a2b3c4d5e6f");
  });

  test("an invalid one is an error at metadata.uid, with its line and column", () => {
    const r = loadStaticPods(manifest("../../../tmp/victim"), FILE);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map(formatManifestError)).toEqual([
      `/etc/kubernetes/manifests/web.yaml:5:8: metadata.uid: Invalid value: "../../../tmp/victim": must consist of lowercase letters, digits and '-', and start and end with a letter or digit (a UUID such as 8f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f)`,
    ]);
    const dots = loadStaticPods(manifest(".."), FILE);
    expect(!dots.ok && dots.errors.map((e) => `${e.line}:${e.column} ${e.field}`)).toEqual(["5:8 metadata.uid"]);
  });
});
