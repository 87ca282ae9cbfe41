// ApiServiceLister against the in-process test API server, with a node's own credentials: not synced
// until its first list, then every namespace's services (the master one included), kept current by
// its watch; and after a server outage it keeps what it had.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { ApiServiceLister } from "../../src/objects/api-service-lister";
import { makeEnvironmentVariables } from "../../src/objects/container-env";
import { eventually } from "../e2e/proc";
import { TestApiServer } from "../fakes/apiserver";
import { FakeObjectSource } from "../fakes/object-source";

const log = createLogger("text", -1);
const clock = new FakeClock(Date.now());
let api: TestApiServer;
let node: KubeClient;
const listers: ApiServiceLister[] = [];

beforeAll(async () => {
  api = await TestApiServer.start();
  const dir = mkdtempSync(join(tmpdir(), "api-service-lister-"));
  api.writeKubeconfig(join(dir, "n1"), api.nodeToken("n1"));
  node = await loadKubeClient(join(dir, "n1"));
  api.store.create("namespaces", { metadata: { name: "shop" } });
});
afterEach(() => {
  for (const l of listers.splice(0)) l.close();
});
afterAll(() => api.stop());

function lister(): ApiServiceLister {
  const l = new ApiServiceLister({ client: node, clock, log, minBackoffMs: 10, maxBackoffMs: 50 });
  listers.push(l);
  return l;
}

const names = (l: ApiServiceLister) =>
  l
    .list()
    .map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)
    .sort();

describe("ApiServiceLister", () => {
  test("not synced before its first list; then every namespace's services, kept current by its watch", async () => {
    api.store.create("services", { metadata: { name: "cart", namespace: "shop" }, spec: { ports: [{ name: "http", port: 8080 }] } });
    const l = lister();
    expect(l.hasSynced()).toBe(false);
    l.start();
    await l.synced();
    expect(l.hasSynced()).toBe(true);
    expect(names(l)).toEqual(["default/kubernetes", "shop/cart"]);
    // One list and one watch of /api/v1/services, as the node.
    const listed = api.requests.filter((r) => r.resource === "services" && r.user === "system:node:n1");
    expect(listed.map((r) => `${r.verb}:${r.namespace ?? "*"}:${r.code}`)).toEqual(["list:*:200"]);
    await eventually(
      "its watch open",
      async () => (api.watching().some((r) => r.resource === "services" && r.user === "system:node:n1" && r.namespace === undefined) ? true : undefined),
      5_000,
    );

    api.store.create("services", { metadata: { name: "db", namespace: "shop" }, spec: { ports: [{ port: 5432 }] } });
    await eventually("the new service seen", async () => (names(l).includes("shop/db") ? true : undefined), 5_000);
    api.store.delete("services", "shop", "cart");
    await eventually("the deleted service gone", async () => (names(l).includes("shop/cart") ? undefined : true), 5_000);

    // What a pod of shop gets from it.
    const cartIP = (api.store.get("services", "shop", "db") as { spec: { clusterIP: string } }).spec.clusterIP;
    const pod: Pod = { metadata: { name: "p", namespace: "shop", annotations: { "kubernetes.io/config.source": "api" } }, spec: { containers: [] } };
    const r = await makeEnvironmentVariables(pod, { name: "c" }, new FakeObjectSource(), () => "", l);
    const env = Object.fromEntries(r.env.map((e) => [e.key, e.value]));
    expect(env).toMatchObject({ KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443", DB_SERVICE_HOST: cartIP, DB_SERVICE_PORT: "5432" });
    api.store.delete("services", "shop", "db");
  });

  test("a failing list leaves it unsynced (the env waits); it syncs once the server answers", async () => {
    api.failNext({ resource: "services", verb: "list", user: "system:node:n1" }, 503, 2);
    const l = lister().start();
    await eventually("the first failed list", async () => (api.requests.some((r) => r.resource === "services" && r.code === 503) ? true : undefined), 5_000);
    expect(l.hasSynced()).toBe(false);
    // The informer retries on the clock.
    await eventually(
      "synced after the retries",
      async () => {
        await clock.advance(100);
        return l.hasSynced() ? true : undefined;
      },
      5_000,
    );
    expect(names(l)).toContain("default/kubernetes");
    expect(api.requests.filter((r) => r.resource === "services" && r.code === 503).length).toBe(2);
  }, 15_000);
});
