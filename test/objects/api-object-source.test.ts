// ApiObjectSource against the in-process test API server, as node system:node:n1: one single-object
// watch per referenced configMap/secret, opened and closed as pods register and unregister; answers
// from the watch's cache; 403 for objects of pods not bound to the node; tokens bound to the pod and
// rotated at 80 % of their lifetime (FakeClock, the server on the same clock).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { ApiObjectSource } from "../../src/objects/api-object-source";
import { ObjectNotFoundError, ObjectSourceError, type ObjectRef } from "../../src/objects/types";
import { eventually } from "../e2e/proc";
import { decodeToken, DEFAULT_ISSUER, TestApiServer } from "../fakes/apiserver";

const log = createLogger("text", -1);
const clock = new FakeClock(Date.now());
let api: TestApiServer;
let node: KubeClient;
const sources: ApiObjectSource[] = [];

beforeAll(async () => {
  api = await TestApiServer.start({ now: () => clock.now() });
  const dir = mkdtempSync(join(tmpdir(), "api-object-source-"));
  api.writeKubeconfig(join(dir, "n1"), api.nodeToken("n1"));
  node = await loadKubeClient(join(dir, "n1"));
});
afterEach(() => {
  for (const s of sources.splice(0)) s.close();
});
afterAll(() => api.stop());

function source(): ApiObjectSource {
  const s = new ApiObjectSource({ client: node, clock, log, tokenJitter: () => 0 });
  sources.push(s);
  return s;
}

/** A pod in the server, bound to `nodeName`, naming configMaps (env) and secrets (volumes). */
function pod(name: string, nodeName: string, refs: { cms?: string[]; secrets?: string[]; sa?: string } = {}): Pod {
  return api.store.create("pods", {
    metadata: { name, namespace: "default" },
    spec: {
      nodeName,
      serviceAccountName: refs.sa,
      containers: [{ name: "c", image: "busybox", envFrom: (refs.cms ?? []).map((n) => ({ configMapRef: { name: n } })) }],
      volumes: (refs.secrets ?? []).map((n) => ({ name: n, secret: { secretName: n } })),
    },
  }) as Pod;
}

/** The single-object watches node n1 has open on the server, as "resource:name". */
const watches = () =>
  api
    .watching()
    .filter((r) => r.user === "system:node:n1")
    .map((r) => `${r.resource}:${r.query.fieldSelector}`)
    .sort();

const watchesAre = (want: string[]) =>
  eventually(`watches ${JSON.stringify(want)}`, async () => JSON.stringify(watches()) === JSON.stringify(want), 10_000, 20);

async function thrown(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("resolved, expected a rejection");
}

describe("ApiObjectSource", () => {
  test("a single-object watch per referenced object, kept while some registered pod names it", async () => {
    const src = source();
    const a = pod("wa", "n1", { cms: ["w-cm"], secrets: ["w-s"] });
    const b = pod("wb", "n1", { cms: ["w-cm"] });
    src.registerPod(a);
    await watchesAre(["configmaps:metadata.name=w-cm", "secrets:metadata.name=w-s"]);
    src.registerPod(b);
    src.unregisterPod(a);
    await watchesAre(["configmaps:metadata.name=w-cm"]);
    expect(src.watchedObjects()).toEqual(["ConfigMap/default/w-cm"]);
    // An update of a registered pod that drops a name drops its watch; one that keeps it keeps it.
    src.registerPod({ ...b, spec: { ...b.spec!, containers: [{ name: "c", image: "busybox" }] } });
    await watchesAre([]);
    src.unregisterPod(b);
    expect(src.watchedObjects()).toEqual([]);
    // Never a namespace-wide read: every list and watch of these resources named one object.
    const reads = api.requests.filter((r) => r.user === "system:node:n1" && (r.resource === "configmaps" || r.resource === "secrets"));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => (r.verb === "list" || r.verb === "watch") && /^metadata\.name=/.test(r.query.fieldSelector ?? "") && r.code === 200)).toBe(true);
  });

  test("gets answer from the watch's cache; a change or an appearance is told to onChange", async () => {
    const src = source();
    const changes: ObjectRef[] = [];
    src.onChange((r) => changes.push(r));
    api.store.create("configmaps", { metadata: { name: "c-cm", namespace: "default" }, data: { k: "v1" } });
    const p = pod("cp", "n1", { cms: ["c-cm", "c-later"], secrets: ["c-missing"] });
    src.registerPod(p);
    expect((await src.getConfigMap("default", "c-cm")).data).toEqual({ k: "v1" });
    expect(changes).toEqual([]);

    const missing = await thrown(src.getSecret("default", "c-missing"));
    expect(missing).toBeInstanceOf(ObjectNotFoundError);
    expect(missing.message).toBe('secret "c-missing" not found');

    api.store.patch("configmaps", "default", "c-cm", "application/merge-patch+json", { data: { k: "v2" } });
    await eventually("the change is told", async () => changes.some((c) => c.name === "c-cm"), 10_000, 20);
    expect(changes[0]).toEqual({ kind: "ConfigMap", namespace: "default", name: "c-cm" });
    expect(((await src.getConfigMap("default", "c-cm")) as ConfigMap).data).toEqual({ k: "v2" });

    api.store.create("configmaps", { metadata: { name: "c-later", namespace: "default" }, data: { x: "1" } });
    await eventually("the appearance is told", async () => changes.some((c) => c.name === "c-later"), 10_000, 20);
    expect((await src.getConfigMap("default", "c-later")).data).toEqual({ x: "1" });
    // No GET per read: everything came from the watches.
    expect(api.requests.filter((r) => r.user === "system:node:n1" && r.verb === "get" && r.resource === "configmaps")).toEqual([]);
  });

  test("an object of a pod not bound to this node: the API server's 403, as an ObjectSourceError", async () => {
    const src = source();
    api.store.create("configmaps", { metadata: { name: "f-cm", namespace: "default" }, data: {} });
    const p = pod("fp", "n2", { cms: ["f-cm"], sa: "f-sa" });
    api.store.create("serviceaccounts", { metadata: { name: "f-sa", namespace: "default" } });
    src.registerPod(p);
    const err = await thrown(src.getConfigMap("default", "f-cm"));
    expect(err).toBeInstanceOf(ObjectSourceError);
    expect(err.message).toBe(
      `failed to sync configmap cache: configmaps "f-cm" is forbidden: User "system:node:n1" cannot list resource "configmaps" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`,
    );
    const tok = await thrown(src.getServiceAccountToken(p, { serviceAccountName: "f-sa", audience: "", expirationSeconds: 3600 }));
    expect(tok).toBeInstanceOf(ObjectSourceError);
    expect(tok.message).toBe(
      `failed to fetch token: serviceaccounts "f-sa" is forbidden: User "system:node:n1" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default": no relationship found between node 'n1' and this object`,
    );
    src.unregisterPod(p);
  });

  test("the server away before the first list: an ObjectSourceError naming why", async () => {
    const src = source();
    const p = pod("dp", "n1", { cms: ["d-cm"] });
    await api.down();
    try {
      src.registerPod(p);
      const err = await thrown(src.getConfigMap("default", "d-cm"));
      expect(err).toBeInstanceOf(ObjectSourceError);
      expect(err.message).toStartWith("failed to sync configmap cache: ");
    } finally {
      await api.up();
    }
  });

  test("a service-account token bound to the pod, with the server's audience, rotated at 80 % of its lifetime", async () => {
    const src = source();
    const changes: ObjectRef[] = [];
    src.onChange((r) => changes.push(r));
    api.store.create("serviceaccounts", { metadata: { name: "t-sa", namespace: "default" } });
    const p = pod("tp", "n1", { sa: "t-sa" });
    src.registerPod(p);
    const req = { serviceAccountName: "t-sa", audience: "", expirationSeconds: 3600 };
    const first = await src.getServiceAccountToken(p, req);
    const claims = decodeToken(first.token);
    expect(claims.aud).toEqual([DEFAULT_ISSUER]);
    expect(claims["kubernetes.io"].pod).toEqual({ name: "tp", uid: p.metadata!.uid! });
    expect(claims.sub).toBe("system:serviceaccount:default:t-sa");
    expect(Date.parse(first.expirationTimestamp)).toBe(claims.exp * 1000);
    const vault = decodeToken((await src.getServiceAccountToken(p, { ...req, audience: "vault" })).token);
    expect(vault.aud).toEqual(["vault"]);

    expect((await src.getServiceAccountToken(p, req)).token).toBe(first.token);
    await clock.advance(2880_000 + 1000);
    await eventually("the refresh is told", async () => changes.some((c) => c.kind === "ServiceAccount"), 10_000, 20);
    expect(changes.find((c) => c.kind === "ServiceAccount")).toEqual({ kind: "ServiceAccount", namespace: "default", name: "t-sa" });
    const second = await src.getServiceAccountToken(p, req);
    expect(second.token).not.toBe(first.token);
    expect(decodeToken(second.token).iat).toBe(claims.iat + 2881);
    const posts = api.requests.filter((r) => r.resource === "serviceaccounts" && r.subresource === "token" && r.user === "system:node:n1" && r.code === 201);
    expect(posts.length).toBe(3);
    src.unregisterPod(p);
  });

  test("an immutable object stops being watched once seen, and is still served", async () => {
    const src = source();
    api.store.create("secrets", { metadata: { name: "i-s", namespace: "default" }, data: { a: "YQ==" }, immutable: true });
    const p = pod("ip", "n1", { secrets: ["i-s"] });
    src.registerPod(p);
    expect((await src.getSecret("default", "i-s")).data).toEqual({ a: "YQ==" });
    await watchesAre([]);
    expect((await src.getSecret("default", "i-s")).data).toEqual({ a: "YQ==" });
    src.unregisterPod(p);
  });

  test("a get for an object no registered pod names is one direct GET", async () => {
    const src = source();
    api.store.create("configmaps", { metadata: { name: "g-cm", namespace: "default" }, data: { a: "1" } });
    pod("gp", "n1", { cms: ["g-cm", "g-none"] });
    expect((await src.getConfigMap("default", "g-cm")).data).toEqual({ a: "1" });
    expect((await thrown(src.getConfigMap("default", "g-none"))).message).toBe('configmap "g-none" not found');
    // Not a pod of this node: the direct GET is refused as the watch would be.
    const forbidden = await thrown(src.getConfigMap("default", "f-cm"));
    expect(forbidden).toBeInstanceOf(ObjectSourceError);
    expect(forbidden.message).toStartWith(`configmaps "f-cm" is forbidden: User "system:node:n1" cannot get resource "configmaps"`);
  });
});
