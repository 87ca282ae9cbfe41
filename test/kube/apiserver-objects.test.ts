// The test API server's configmaps, secrets, serviceaccounts and TokenRequest subresource, and the Node
// authorizer and NodeRestriction rules on them (issue 15), through fetch where the exact Status matters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TokenRequest } from "kubernetes-types/authentication/v1";
import type { Pod } from "kubernetes-types/core/v1";
import { eventually } from "../e2e/proc";
import { decodeToken, DEFAULT_ISSUER, TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;
const now = Date.UTC(2026, 5, 1, 12, 0, 0);

beforeAll(async () => {
  api = await TestApiServer.start({ now: () => now });
});
afterAll(() => api.stop());

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${init.token ?? api.adminToken}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
    tls: { ca: api.caPem },
  } as RequestInit);

async function answer(path: string, init: RequestInit & { token?: string } = {}): Promise<{ code: number; body: any }> {
  const resp = await call(path, init);
  return { code: resp.status, body: await resp.json() };
}

const post = (path: string, body: unknown, token?: string) => answer(path, { method: "POST", body: JSON.stringify(body), token });

function podUsing(name: string, nodeName: string | undefined, refs: { cm?: string; secret?: string; sa?: string } = {}): Pod {
  return {
    metadata: { name, namespace: "default" },
    spec: {
      nodeName,
      serviceAccountName: refs.sa,
      containers: [{ name: "c", image: "busybox", envFrom: refs.cm ? [{ configMapRef: { name: refs.cm } }] : undefined }],
      volumes: refs.secret ? [{ name: "s", secret: { secretName: refs.secret } }] : undefined,
    },
  };
}

const tokenRequest = (pod?: Pod, spec: Partial<TokenRequest["spec"]> = {}): TokenRequest => ({
  apiVersion: "authentication.k8s.io/v1",
  kind: "TokenRequest",
  spec: { audiences: [], ...(pod ? { boundObjectRef: { apiVersion: "v1", kind: "Pod", name: pod.metadata!.name!, uid: pod.metadata!.uid! } } : {}), ...spec },
});

describe("objects", () => {
  test("configmaps and secrets: CRUD, stringData merged into data, type defaulted, immutable data refused", async () => {
    const cm = await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "cfg" }, data: { a: "1" } });
    expect(cm).toMatchObject({ code: 201, body: { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cfg", namespace: "default" }, data: { a: "1" } } });
    const s = await post("/api/v1/namespaces/default/secrets", {
      metadata: { name: "sec" },
      data: { a: Buffer.from("x").toString("base64") },
      stringData: { b: "y" },
    });
    expect(s.body).toMatchObject({ kind: "Secret", type: "Opaque", data: { a: "eA==", b: "eQ==" } });
    expect(s.body.stringData).toBeUndefined();
    const merge = { method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" } };
    expect((await answer("/api/v1/namespaces/default/configmaps/cfg", { ...merge, body: JSON.stringify({ data: { a: "2" } }) })).body.data).toEqual({ a: "2" });
    await post("/api/v1/namespaces/default/configmaps", { metadata: { name: "frozen" }, data: { a: "1" }, immutable: true });
    const frozen = await answer("/api/v1/namespaces/default/configmaps/frozen", { ...merge, body: JSON.stringify({ data: { a: "2" } }) });
    expect(frozen).toMatchObject({
      code: 422,
      body: { reason: "Invalid", message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set' },
    });
    expect((await answer("/api/v1/namespaces/default/configmaps/nope")).body.message).toBe('configmaps "nope" not found');
    expect((await answer("/api/v1/namespaces/default/secrets/sec", { method: "DELETE" })).code).toBe(200);
    expect((await answer("/api/v1/namespaces/default/secrets/sec")).code).toBe(404);
  });
});

describe("TokenRequest", () => {
  test("the TokenRequest comes back with a token bound to the pod, the server's audiences and the expiry", async () => {
    const sa = (await post("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "robot" } })).body;
    const pod = api.store.create("pods", podUsing("tok", "n1", { sa: "robot" })) as Pod;
    const r = await post("/api/v1/namespaces/default/serviceaccounts/robot/token", tokenRequest(pod, { expirationSeconds: 1200 }));
    expect(r.code).toBe(201);
    expect(r.body).toMatchObject({
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { name: "robot", namespace: "default", creationTimestamp: "2026-06-01T12:00:00Z" },
      spec: { audiences: [DEFAULT_ISSUER], expirationSeconds: 1200, boundObjectRef: { kind: "Pod", name: "tok", uid: pod.metadata!.uid } },
      status: { expirationTimestamp: "2026-06-01T12:20:00Z" },
    });
    const claims = decodeToken(r.body.status.token);
    expect(claims).toMatchObject({
      iss: DEFAULT_ISSUER,
      sub: "system:serviceaccount:default:robot",
      aud: [DEFAULT_ISSUER],
      iat: now / 1000,
      exp: now / 1000 + 1200,
    });
    expect(claims["kubernetes.io"]).toEqual({
      namespace: "default",
      pod: { name: "tok", uid: pod.metadata!.uid! },
      serviceaccount: { name: "robot", uid: sa.metadata.uid },
    });

    // An audience asked for is the token's; expirationSeconds defaults to 3600.
    const aud = await post("/api/v1/namespaces/default/serviceaccounts/robot/token", tokenRequest(pod, { audiences: ["vault"] }));
    expect(aud.body.spec).toMatchObject({ audiences: ["vault"], expirationSeconds: 3600 });
    expect(decodeToken(aud.body.status.token).aud).toEqual(["vault"]);

    // 3607 s with the server's audiences: a year-long token that warns after 3607 s; the status says 3607 s.
    const ext = await post("/api/v1/namespaces/default/serviceaccounts/robot/token", tokenRequest(pod, { expirationSeconds: 3607 }));
    expect(ext.body.status.expirationTimestamp).toBe("2026-06-01T13:00:07Z");
    expect(decodeToken(ext.body.status.token)).toMatchObject({ exp: now / 1000 + 24 * 365 * 3600, "kubernetes.io": { warnafter: now / 1000 + 3607 } });
  });

  test("the server's refusals: short expiry, missing service account or pod, another service account, a stale uid", async () => {
    await post("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "r2" } });
    const pod = api.store.create("pods", podUsing("tok2", "n1", { sa: "r2" })) as Pod;
    const short = await post("/api/v1/namespaces/default/serviceaccounts/r2/token", tokenRequest(pod, { expirationSeconds: 599 }));
    expect(short).toMatchObject({
      code: 422,
      body: {
        reason: "Invalid",
        message:
          'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      },
    });
    expect((await post("/api/v1/namespaces/default/serviceaccounts/r2/token", tokenRequest(pod, { expirationSeconds: 600 }))).code).toBe(201);
    const noSa = await post("/api/v1/namespaces/default/serviceaccounts/ghost/token", tokenRequest(pod));
    expect(noSa).toMatchObject({ code: 404, body: { message: 'serviceaccounts "ghost" not found' } });
    const noPod = await post("/api/v1/namespaces/default/serviceaccounts/r2/token", tokenRequest({ metadata: { name: "gone", uid: "u" } }));
    expect(noPod).toMatchObject({ code: 404, body: { message: 'pods "gone" not found' } });
    await post("/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "other" } });
    const wrongSa = await post("/api/v1/namespaces/default/serviceaccounts/other/token", tokenRequest(pod));
    expect(wrongSa).toMatchObject({
      code: 400,
      body: { message: 'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.' },
    });
    const stale = await post("/api/v1/namespaces/default/serviceaccounts/r2/token", tokenRequest({ metadata: { name: "tok2", uid: "old" } }));
    expect(stale).toMatchObject({
      code: 409,
      body: {
        reason: "Conflict",
        message:
          'Operation cannot be fulfilled on Pod "tok2": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
      },
    });
  });
});

describe("the Node authorizer on the objects pods name", () => {
  test("a node reads the configmaps and secrets of pods bound to it, one by name; never others, never a list", async () => {
    const token = api.nodeToken("on1");
    api.store.create("configmaps", { metadata: { name: "cm-mine", namespace: "default" }, data: { k: "v" } });
    api.store.create("configmaps", { metadata: { name: "cm-theirs", namespace: "default" }, data: { k: "v" } });
    api.store.create("secrets", { metadata: { name: "s-mine", namespace: "default" }, data: {} });
    api.store.create("pods", podUsing("p-on1", "on1", { cm: "cm-mine", secret: "s-mine" }));
    api.store.create("pods", podUsing("p-on2", "on2", { cm: "cm-theirs" }));
    api.store.create("pods", podUsing("p-unbound", undefined, { cm: "cm-theirs" }));

    expect((await answer("/api/v1/namespaces/default/configmaps/cm-mine", { token })).code).toBe(200);
    expect((await answer("/api/v1/namespaces/default/secrets/s-mine", { token })).code).toBe(200);
    const byName = await answer("/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dcm-mine", { token });
    expect(byName.body.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(["cm-mine"]);
    // A pod's object that does not exist (yet) is still the node's to read: 404, not 403.
    api.store.create("pods", podUsing("p-later", "on1", { cm: "cm-later" }));
    expect((await answer("/api/v1/namespaces/default/configmaps/cm-later", { token })).code).toBe(404);

    const theirs = await answer("/api/v1/namespaces/default/configmaps/cm-theirs", { token });
    expect(theirs).toMatchObject({
      code: 403,
      body: {
        reason: "Forbidden",
        message: `configmaps "cm-theirs" is forbidden: User "system:node:on1" cannot get resource "configmaps" in API group "" in the namespace "default": no relationship found between node 'on1' and this object`,
      },
    });
    const watchTheirs = await answer("/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dcm-theirs", { token });
    expect(watchTheirs.body.message).toBe(
      `configmaps "cm-theirs" is forbidden: User "system:node:on1" cannot watch resource "configmaps" in API group "" in the namespace "default": no relationship found between node 'on1' and this object`,
    );
    const list = await answer("/api/v1/namespaces/default/secrets", { token });
    expect(list.body.message).toBe(
      `secrets is forbidden: User "system:node:on1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found`,
    );
    const all = await answer("/api/v1/secrets", { token });
    expect(all.body.message).toBe(
      `secrets is forbidden: User "system:node:on1" cannot list resource "secrets" in API group "" at the cluster scope: can only read namespaced object of this type`,
    );
    const write = await answer("/api/v1/namespaces/default/configmaps/cm-mine", { token, method: "DELETE" });
    expect(write.body.message).toBe(
      `configmaps "cm-mine" is forbidden: User "system:node:on1" cannot delete resource "configmaps" in API group "" in the namespace "default": can only read resources of this type`,
    );
  });

  test("a node creates tokens only for the service accounts of its pods, bound to one of its pods by uid", async () => {
    const token = api.nodeToken("tn1");
    api.store.create("serviceaccounts", { metadata: { name: "app", namespace: "default" } });
    api.store.create("serviceaccounts", { metadata: { name: "stranger", namespace: "default" } });
    const mine = api.store.create("pods", podUsing("t-mine", "tn1", { sa: "app" })) as Pod;
    const theirs = api.store.create("pods", podUsing("t-theirs", "tn2", { sa: "app" })) as Pod;
    const path = (sa: string) => `/api/v1/namespaces/default/serviceaccounts/${sa}/token`;

    const ok = await post(path("app"), tokenRequest(mine), token);
    expect(ok.code).toBe(201);
    expect(decodeToken(ok.body.status.token)["kubernetes.io"].pod).toEqual({ name: "t-mine", uid: mine.metadata!.uid! });

    const stranger = await post(path("stranger"), tokenRequest(mine), token);
    expect(stranger.body.message).toBe(
      `serviceaccounts "stranger" is forbidden: User "system:node:tn1" cannot create resource "serviceaccounts/token" in API group "" in the namespace "default": no relationship found between node 'tn1' and this object`,
    );
    expect((await post(path("app"), tokenRequest(), token)).body.message).toBe(`serviceaccounts "app" is forbidden: node requested token not bound to a pod`);
    const noUid = tokenRequest(mine);
    delete noUid.spec.boundObjectRef!.uid;
    expect((await post(path("app"), noUid, token)).body.message).toBe(
      `serviceaccounts "app" is forbidden: node requested token with a pod binding without a uid`,
    );
    expect((await post(path("app"), tokenRequest(theirs), token)).body.message).toBe(
      `serviceaccounts "app" is forbidden: node requested token bound to a pod scheduled on a different node`,
    );
    expect((await post(path("app"), tokenRequest({ metadata: { name: "t-mine", uid: "stale" } }), token)).body.message).toMatch(
      /^serviceaccounts "app" is forbidden: the UID in the bound object reference \(stale\) does not match/,
    );
    const get = await answer("/api/v1/namespaces/default/serviceaccounts/app", { token });
    expect(get).toMatchObject({
      code: 403,
      body: {
        message: `serviceaccounts "app" is forbidden: User "system:node:tn1" cannot get resource "serviceaccounts" in API group "" in the namespace "default": can only create tokens for individual service accounts`,
      },
    });
  });
});

describe("open watches", () => {
  test("watching() lists the streams open now, with their field selectors", async () => {
    const ctl = new AbortController();
    const resp = await call("/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dcfg", { signal: ctl.signal });
    expect(resp.status).toBe(200);
    expect(api.watching().map((r) => [r.resource, r.query.fieldSelector])).toEqual([["configmaps", "metadata.name=cfg"]]);
    ctl.abort();
    await eventually("the watch closed on the server", async () => api.watching().length === 0, 5000, 10);
  });
});
