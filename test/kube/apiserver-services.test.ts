// The test API server's services (for the kubelet's service-link variables): the master service there
// from the start, defaults and a cluster IP allocated in the service CIDR on create, a given IP checked,
// the IP kept on update, headless and ExternalName without one, list/watch across namespaces, and a
// node's identity allowed to read them all (RBAC's system:node role) but not to write them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Service } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;
beforeAll(async () => {
  api = await TestApiServer.start();
});
afterAll(() => api.stop());

async function answer(path: string, init: RequestInit & { token?: string } = {}): Promise<{ code: number; body: any }> {
  const resp = await fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${init.token ?? api.adminToken}`, "Content-Type": "application/json" },
    tls: { ca: api.caPem },
  } as RequestInit);
  return { code: resp.status, body: await resp.json() };
}
const post = (path: string, body: unknown, token?: string) => answer(path, { method: "POST", body: JSON.stringify(body), token });
const inRange = (ip: string) => {
  const [a, b] = ip.split(".").map(Number);
  return a === 10 && b! >= 96 && b! <= 111;
};

describe("services", () => {
  test("the master service `kubernetes` is in default from the start, as the bootstrap controller keeps it", async () => {
    const { code, body } = await answer("/api/v1/namespaces/default/services/kubernetes");
    expect(code).toBe(200);
    expect(body.spec).toMatchObject({
      clusterIP: "10.96.0.1",
      clusterIPs: ["10.96.0.1"],
      type: "ClusterIP",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 6443 }],
    });
    expect(body.metadata.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
  });

  test("create allocates a free cluster IP in 10.96.0.0/12 and defaults the spec; headless and ExternalName get none", async () => {
    const a = await post("/api/v1/namespaces/default/services", {
      metadata: { name: "web" },
      spec: { ports: [{ port: 80 }, { name: "dns", port: 53, protocol: "UDP", targetPort: 5353 }] },
    });
    expect(a.code).toBe(201);
    const spec = (a.body as Service).spec!;
    expect(inRange(spec.clusterIP!)).toBe(true);
    expect(spec.clusterIP).not.toBe("10.96.0.1");
    expect(spec).toMatchObject({
      clusterIPs: [spec.clusterIP],
      type: "ClusterIP",
      sessionAffinity: "None",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      internalTrafficPolicy: "Cluster",
    });
    expect(spec.ports).toEqual([
      { port: 80, protocol: "TCP", targetPort: 80 },
      { name: "dns", port: 53, protocol: "UDP", targetPort: 5353 },
    ]);
    const b = await post("/api/v1/namespaces/default/services", { metadata: { name: "web2" }, spec: { ports: [{ port: 80 }] } });
    expect(b.body.spec.clusterIP).not.toBe(spec.clusterIP);
    const headless = await post("/api/v1/namespaces/default/services", { metadata: { name: "db" }, spec: { clusterIP: "None", ports: [{ port: 5432 }] } });
    expect(headless.body.spec).toMatchObject({ clusterIP: "None", clusterIPs: ["None"] });
    const ext = await post("/api/v1/namespaces/default/services", { metadata: { name: "ext" }, spec: { type: "ExternalName", externalName: "example.com" } });
    expect(ext.code).toBe(201);
    expect(ext.body.spec.clusterIP).toBeUndefined();
  });

  test("a given cluster IP must be in the range and free; ports are required; the IP may not change", async () => {
    const ok = await post("/api/v1/namespaces/default/services", { metadata: { name: "fixed" }, spec: { clusterIP: "10.96.100.100", ports: [{ port: 80 }] } });
    expect(ok.body.spec.clusterIP).toBe("10.96.100.100");
    const taken = await post("/api/v1/namespaces/default/services", {
      metadata: { name: "taken" },
      spec: { clusterIP: "10.96.100.100", ports: [{ port: 80 }] },
    });
    expect(taken).toMatchObject({
      code: 422,
      body: {
        reason: "Invalid",
        message:
          'Service "taken" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.100.100"}: failed to allocate IP 10.96.100.100: provided IP is already allocated',
      },
    });
    const out = await post("/api/v1/namespaces/default/services", { metadata: { name: "out" }, spec: { clusterIP: "192.168.0.10", ports: [{ port: 80 }] } });
    expect(out.body.message).toBe(
      'Service "out" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.10"}: failed to allocate IP 192.168.0.10: provided IP (192.168.0.10) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
    const noPorts = await post("/api/v1/namespaces/default/services", { metadata: { name: "noports" }, spec: {} });
    expect(noPorts.body.message).toBe('Service "noports" is invalid: spec.ports: Required value');
    // An update without the IP keeps it; one with another IP is refused.
    const put = await answer("/api/v1/namespaces/default/services/fixed", {
      method: "PUT",
      body: JSON.stringify({ metadata: { name: "fixed", namespace: "default" }, spec: { ports: [{ port: 81 }] } }),
    });
    expect(put.body.spec).toMatchObject({ clusterIP: "10.96.100.100", ports: [{ port: 81, protocol: "TCP", targetPort: 81 }] });
    const change = await answer("/api/v1/namespaces/default/services/fixed", {
      method: "PUT",
      body: JSON.stringify({ metadata: { name: "fixed", namespace: "default" }, spec: { clusterIP: "10.96.100.101", ports: [{ port: 81 }] } }),
    });
    expect(change.body.message).toBe('Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.100.101"}: may not change once set');
    // A deleted service's IP is free again.
    expect((await answer("/api/v1/namespaces/default/services/fixed", { method: "DELETE" })).code).toBe(200);
    expect(
      (await post("/api/v1/namespaces/default/services", { metadata: { name: "again" }, spec: { clusterIP: "10.96.100.100", ports: [{ port: 80 }] } })).code,
    ).toBe(201);
  });

  test("a node lists and watches the services of every namespace, and may not write them", async () => {
    const token = api.nodeToken("svc-node");
    api.store.create("namespaces", { metadata: { name: "shop" } });
    api.store.create("services", { metadata: { name: "cart", namespace: "shop" }, spec: { ports: [{ port: 8080 }] } });
    const list = await answer("/api/v1/services", { token });
    expect(list.code).toBe(200);
    const names = list.body.items.map((s: Service) => `${s.metadata!.namespace}/${s.metadata!.name}`);
    expect(names).toContain("default/kubernetes");
    expect(names).toContain("shop/cart");
    expect((await answer("/api/v1/namespaces/shop/services/cart", { token })).code).toBe(200);
    const resp = await fetch(`${api.url}/api/v1/services?watch=true&resourceVersion=0`, {
      headers: { Authorization: `Bearer ${token}` },
      tls: { ca: api.caPem },
    } as RequestInit);
    expect(resp.status).toBe(200);
    await resp.body?.cancel();
    const write = await post("/api/v1/namespaces/shop/services", { metadata: { name: "evil" }, spec: { ports: [{ port: 1 }] } }, token);
    expect(write).toMatchObject({
      code: 403,
      body: { message: `services is forbidden: User "system:node:svc-node" cannot create resource "services" in API group "" in the namespace "shop"` },
    });
  });
});
