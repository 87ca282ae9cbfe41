import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";
import { fnv128a, stableStringify, staticPodName, staticPodUID, toStaticPod } from "../../src/manifest/static-pod";
import type { PodOrigin } from "../../src/manifest/types";

/** FNV-1a 128 the slow, obvious way, to check the limb arithmetic against. */
function referenceFnv128a(bytes: Uint8Array): string {
  let h = 0x6c62272e07bb014262b821756295c58dn;
  const prime = 0x0000000001000000000000000000013bn;
  const mask = (1n << 128n) - 1n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * prime) & mask;
  return h.toString(16).padStart(32, "0");
}

const origin: PodOrigin = { source: "file", location: "/etc/kubernetes/manifests/web.yaml", nodeName: "Node1" };
const pod = (): Pod => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [{ name: "a", image: "b" }] } });

describe("fnv128a", () => {
  test("the empty input gives the offset basis", () => {
    expect(fnv128a(new Uint8Array())).toBe("6c62272e07bb014262b821756295c58d");
  });

  test("matches a bigint implementation on many inputs", () => {
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      const bytes = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        bytes[i] = seed >>> 24;
      }
      expect(fnv128a(bytes)).toBe(referenceFnv128a(bytes));
    }
  });

  test("chunks hash like their concatenation", () => {
    const e = new TextEncoder();
    expect(fnv128a(e.encode("host:n"), e.encode("file:/x"))).toBe(fnv128a(e.encode("host:nfile:/x")));
  });
});

describe("stableStringify", () => {
  test("key order does not matter", () => {
    expect(stableStringify({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(stableStringify({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
    expect(stableStringify({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe("staticPodUID", () => {
  test("is 32 hex digits and stable", () => {
    const uid = staticPodUID(pod(), origin);
    expect(uid).toMatch(/^[0-9a-f]{32}$/);
    expect(staticPodUID(pod(), origin)).toBe(uid);
  });

  test("changes with the content, the node and the path", () => {
    const uid = staticPodUID(pod(), origin);
    const edited = pod();
    edited.spec!.containers[0]!.image = "c";
    expect(staticPodUID(edited, origin)).not.toBe(uid);
    expect(staticPodUID(pod(), { ...origin, nodeName: "node2" })).not.toBe(uid);
    expect(staticPodUID(pod(), { ...origin, location: "/etc/kubernetes/manifests/web2.yaml" })).not.toBe(uid);
  });

  test("URL pods hash the URL and not the node, as the kubelet does", () => {
    const http: PodOrigin = { source: "http", location: "http://127.0.0.1/pods", nodeName: "node1" };
    expect(staticPodUID(pod(), http)).toBe(staticPodUID(pod(), { ...http, nodeName: "node2" }));
    expect(staticPodUID(pod(), http)).not.toBe(staticPodUID(pod(), { ...http, location: "http://127.0.0.1/other" }));
  });
});

describe("toStaticPod", () => {
  test("names, binds and annotates a copy", () => {
    const input = pod();
    const before = structuredClone(input);
    const out = toStaticPod(input, origin);
    expect(input).toEqual(before);
    const uid = staticPodUID(input, origin);
    expect(out.metadata).toEqual({
      name: "web-node1",
      namespace: "default",
      uid,
      annotations: { [CONFIG_HASH_ANNOTATION]: uid, [CONFIG_SOURCE_ANNOTATION]: "file" },
    });
    expect(out.spec!.nodeName).toBe("Node1");
    expect(out.spec!.tolerations).toEqual([{ operator: "Exists", effect: "NoExecute" }]);
    expect(out.status).toEqual({ phase: "Pending" });
    expect(staticPodName("etcd", "Node-A")).toBe("etcd-node-a");
  });

  test("keeps a UID and namespace given in the manifest", () => {
    const input = pod();
    input.metadata = { name: "web", namespace: "kube-system", uid: "fixed-uid", annotations: { a: "b" } };
    const out = toStaticPod(input, origin);
    expect(out.metadata!.uid).toBe("fixed-uid");
    expect(out.metadata!.namespace).toBe("kube-system");
    expect(out.metadata!.annotations).toEqual({ a: "b", [CONFIG_HASH_ANNOTATION]: "fixed-uid", [CONFIG_SOURCE_ANNOTATION]: "file" });
  });

  test("does not add the toleration twice, and only for file pods", () => {
    const input = pod();
    input.spec!.tolerations = [
      { key: "k", operator: "Exists" },
      { operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 },
    ];
    expect(toStaticPod(input, origin).spec!.tolerations).toEqual([
      { key: "k", operator: "Exists" },
      { operator: "Exists", effect: "NoExecute" },
    ]);
    const http = toStaticPod(pod(), { source: "http", location: "http://x/", nodeName: "n" });
    expect(http.spec!.tolerations).toBeUndefined();
    expect(http.metadata!.annotations![CONFIG_SOURCE_ANNOTATION]).toBe("http");
  });
});

test("a pod pushed to the API keeps its name; file and URL pods get the node suffix", async () => {
  const { toStaticPod } = await import("../../src/manifest/static-pod");
  const pod = { metadata: { name: "web" }, spec: { containers: [{ name: "c", image: "i" }] } };
  expect(toStaticPod(pod, { source: "push", location: "POST /pods", nodeName: "n1" }).metadata!.name).toBe("web");
  expect(toStaticPod(pod, { source: "file", location: "/m/web.yaml", nodeName: "n1" }).metadata!.name).toBe("web-n1");
  expect(toStaticPod(pod, { source: "http", location: "http://127.0.0.1/x", nodeName: "n1" }).metadata!.name).toBe("web-n1");
});
