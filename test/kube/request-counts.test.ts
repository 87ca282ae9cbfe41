// nodeagent_api_requests_total's source: every request a KubeClient sends — generated clients, getJson and
// postJson, watches — counted once in its transport by the verb and resource the API server reads from
// it and the code it answered; the test API server's own record of the requests is the reference.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { ApiRequestCounts, apiRequestAttributes, KubeInformer, loadKubeClient, type KubeClient } from "../../src/kube";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer } from "../fakes/apiserver";

describe("apiRequestAttributes", () => {
  const at = (method: string, path: string) => apiRequestAttributes(method, new URL(`https://api.example${path}`));
  test("verbs and resources as the API server's RequestInfo reads them", () => {
    expect(at("GET", "/api/v1/namespaces/default/pods/web")).toEqual({ verb: "get", resource: "pods" });
    expect(at("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1")).toEqual({ verb: "list", resource: "pods" });
    expect(at("GET", "/api/v1/pods?watch=true&resourceVersion=5")).toEqual({ verb: "watch", resource: "pods" });
    expect(at("PATCH", "/api/v1/namespaces/default/pods/web/status")).toEqual({ verb: "patch", resource: "pods/status" });
    expect(at("PATCH", "/api/v1/nodes/n1/status")).toEqual({ verb: "patch", resource: "nodes/status" });
    expect(at("GET", "/api/v1/nodes/n1")).toEqual({ verb: "get", resource: "nodes" });
    expect(at("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1")).toEqual({ verb: "update", resource: "leases" });
    expect(at("POST", "/apis/events.k8s.io/v1/namespaces/default/events")).toEqual({ verb: "create", resource: "events" });
    expect(at("POST", "/api/v1/namespaces/default/serviceaccounts/default/token")).toEqual({ verb: "create", resource: "serviceaccounts/token" });
    expect(at("POST", "/apis/authentication.k8s.io/v1/tokenreviews")).toEqual({ verb: "create", resource: "tokenreviews" });
    expect(at("DELETE", "/api/v1/namespaces/default/pods/web")).toEqual({ verb: "delete", resource: "pods" });
    expect(at("DELETE", "/api/v1/namespaces/default/pods")).toEqual({ verb: "deletecollection", resource: "pods" });
    // The namespace object itself, and a URL that names no resource.
    expect(at("GET", "/api/v1/namespaces/default")).toEqual({ verb: "get", resource: "namespaces" });
    expect(at("GET", "/version")).toEqual({ verb: "list", resource: "/version" });
  });
});

describe("a client's counts", () => {
  let api: TestApiServer;
  let dir: string;
  let client: KubeClient;

  beforeAll(async () => {
    api = await TestApiServer.start();
    dir = mkdtempSync(join(tmpdir(), "kube-request-counts-"));
    api.writeKubeconfig(join(dir, "admin"), api.adminToken);
    client = await loadKubeClient(join(dir, "admin"));
  });
  afterAll(async () => {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The server's record as the client's series: verb, resource[/subresource], code. */
  const serverSeen = () => {
    const c = new ApiRequestCounts();
    for (const r of api.requests) c.record(r.verb as never, r.subresource ? `${r.resource}/${r.subresource}` : r.resource, String(r.code));
    return c.snapshot().sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  };
  const sorted = (c: ApiRequestCounts) => c.snapshot().sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  test("generated clients, getJson, postJson and a watch: each request counted once, as the server saw it", async () => {
    await client.core.createNamespacedPod({
      namespace: "default",
      body: { metadata: { name: "web" }, spec: { containers: [{ name: "c", image: "busybox" }] } },
    });
    await client.core.readNamespacedPod({ name: "web", namespace: "default" });
    await client.getJson("/api/v1/namespaces/default/pods");
    await client.postJson("/apis/authentication.k8s.io/v1/tokenreviews", { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token: "x" } });
    const informer = new KubeInformer<Pod>({ client, path: "/api/v1/pods", clock: new FakeClock(), log: createLogger("text", -1), what: "pods" });
    informer.start();
    await informer.synced();
    for (let i = 0; i < 100 && api.watching().length === 0; i++) await Bun.sleep(10);
    await informer.stop();
    await client.core.deleteNamespacedPod({ name: "web", namespace: "default" }).catch(() => undefined);
    await client.core.readNamespacedPod({ name: "nope", namespace: "default" }).catch(() => undefined);

    expect(sorted(client.requests)).toEqual(serverSeen());
    expect(client.requests.total({ verb: "watch", resource: "pods" })).toBe(1);
    expect(client.requests.total({ verb: "get", resource: "pods", code: "404" })).toBe(1);
    expect(client.requests.total({ verb: "create", resource: "tokenreviews" })).toBe(1);
  });

  test("a request retried after a 429 counts each time; one that got no answer counts as <error>", async () => {
    const before = client.requests.total({ verb: "get", resource: "namespaces" });
    api.failNext({ verb: "get", resource: "namespaces" }, 429, 2, 0);
    await client.getJson("/api/v1/namespaces/default");
    expect(client.requests.total({ verb: "get", resource: "namespaces", code: "429" })).toBe(2);
    expect(client.requests.total({ verb: "get", resource: "namespaces" })).toBe(before + 3);

    await api.down();
    try {
      await expect(client.core.readNode({ name: "n1" })).rejects.toBeDefined();
    } finally {
      await api.up();
    }
    expect(client.requests.total({ verb: "get", resource: "nodes", code: "<error>" })).toBe(1);
  });

  test("counts given to several clients are shared: a process of many nodes can sum or keep them apart", async () => {
    const shared = new ApiRequestCounts();
    const a = await loadKubeClient(join(dir, "admin"), { requests: shared });
    const b = await loadKubeClient(join(dir, "admin"), { requests: shared });
    await a.getJson("/api/v1/namespaces/default");
    await b.getJson("/api/v1/namespaces/default");
    expect(a.requests).toBe(shared);
    expect(shared.snapshot()).toEqual([{ verb: "get", resource: "namespaces", code: "200", count: 2 }]);
  });
});
