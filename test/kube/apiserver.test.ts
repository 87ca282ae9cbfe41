// The test API server's wire behaviour, through @kubernetes/client-node where the generated client
// exposes it and through fetch where the exact bytes matter (watch streams, Status bodies).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PatchStrategy, setHeaderOptions, type V1Lease, type V1Pod } from "@kubernetes/client-node";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { TestApiServer } from "../fakes/apiserver";
import { jsonPatch, mergePatch, strategicMergePatch } from "../fakes/apiserver/patch";

let api: TestApiServer;
let admin: KubeClient;
let dir: string;

const pod = (name: string, extra: Partial<V1Pod["spec"]> = {}, meta: V1Pod["metadata"] = {}): V1Pod => ({
  metadata: { name, namespace: "default", ...meta },
  spec: { containers: [{ name: "c", image: "busybox" }], ...extra },
});

async function clientFor(token: string, name: string): Promise<KubeClient> {
  const path = join(dir, name);
  api.writeKubeconfig(path, token);
  return loadKubeClient(path);
}

/** The HTTP status and Status body of a failed generated-client call. */
async function failure(p: Promise<unknown>): Promise<{ code: number; body: { reason?: string; message?: string; kind?: string } }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code: number; body: string };
    return { code: err.code, body: JSON.parse(err.body) };
  }
  throw new Error("call succeeded, expected a failure");
}

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${init.token ?? api.adminToken}`, ...(init.headers ?? {}) },
    tls: { ca: api.caPem },
  } as RequestInit);

/** Reads newline-delimited watch events until `until` says stop or the stream ends. */
async function readEvents(resp: Response, until: (events: Array<{ type: string; object: any }>) => boolean): Promise<Array<{ type: string; object: any }>> {
  const events: Array<{ type: string; object: any }> = [];
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of resp.body!) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      if (line) events.push(JSON.parse(line));
      buf = buf.slice(nl + 1);
    }
    if (until(events)) break;
  }
  return events;
}

const SMP = setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch);
const MERGE = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "apiserver-test-"));
  api = await TestApiServer.start({ bookmarkIntervalMs: 50 });
  admin = await clientFor(api.adminToken, "admin");
});
afterAll(() => api.stop());

describe("objects", () => {
  test("create stamps uid, creationTimestamp, resourceVersion, generation, defaults and a Pending status", async () => {
    const before = api.store.resourceVersion;
    const created = await admin.core.createNamespacedPod({ namespace: "default", body: pod("create-1") });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata?.resourceVersion)).toBe(before + 1);
    expect(created.metadata?.generation).toBe(1);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(created.spec?.schedulerName).toBe("default-scheduler");
    expect(created.status?.phase).toBe("Pending");
  });

  test("generateName, AlreadyExists, Invalid and NotFound answer as the apiserver does", async () => {
    const generated = await admin.core.createNamespacedPod({ namespace: "default", body: { ...pod(""), metadata: { generateName: "gen-" } } });
    expect(generated.metadata?.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);

    const dup = await failure(admin.core.createNamespacedPod({ namespace: "default", body: pod(generated.metadata!.name!) }));
    expect(dup).toMatchObject({ code: 409, body: { kind: "Status", reason: "AlreadyExists", message: `pods "${generated.metadata!.name}" already exists` } });

    const noContainers = await failure(
      admin.core.createNamespacedPod({ namespace: "default", body: { metadata: { name: "empty" }, spec: { containers: [] } } }),
    );
    expect(noContainers).toMatchObject({ code: 422, body: { reason: "Invalid", message: 'Pod "empty" is invalid: spec.containers: Required value' } });

    const missing = await failure(admin.core.readNamespacedPod({ name: "nope", namespace: "default" }));
    expect(missing).toMatchObject({ code: 404, body: { reason: "NotFound", message: 'pods "nope" not found' } });

    const noNamespace = await failure(admin.core.createNamespacedPod({ namespace: "elsewhere", body: { ...pod("x"), metadata: { name: "x" } } }));
    expect(noNamespace).toMatchObject({ code: 404, body: { message: 'namespaces "elsewhere" not found' } });
  });

  test("PUT with a stale resourceVersion is a Conflict; a changed uid is Invalid; a no-op PUT writes nothing", async () => {
    const node = await admin.core.createNode({ body: { metadata: { name: "put-node", labels: { a: "1" } } } });
    const updated = await admin.core.replaceNode({ name: "put-node", body: { ...node, metadata: { ...node.metadata, labels: { a: "2" } } } });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(node.metadata?.resourceVersion));

    const stale = await failure(admin.core.replaceNode({ name: "put-node", body: node }));
    expect(stale).toMatchObject({
      code: 409,
      body: {
        reason: "Conflict",
        message:
          'Operation cannot be fulfilled on nodes "put-node": the object has been modified; please apply your changes to the latest version and try again',
      },
    });

    const uid = await failure(admin.core.replaceNode({ name: "put-node", body: { ...updated, metadata: { ...updated.metadata, uid: "other" } } }));
    expect(uid).toMatchObject({ code: 422, body: { reason: "Invalid" } });
    expect(uid.body.message).toContain("metadata.uid: Invalid value");

    const same = await admin.core.replaceNode({ name: "put-node", body: updated });
    expect(same.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
  });

  test("the main resource ignores status changes and /status ignores everything else", async () => {
    await admin.core.createNamespacedPod({ namespace: "default", body: pod("split") });
    const main = await admin.core.patchNamespacedPod(
      { name: "split", namespace: "default", body: { metadata: { labels: { x: "y" } }, status: { phase: "Running" } } },
      MERGE,
    );
    expect(main.metadata?.labels).toEqual({ x: "y" });
    expect(main.status?.phase).toBe("Pending");

    const status = await admin.core.patchNamespacedPodStatus(
      { name: "split", namespace: "default", body: { spec: { activeDeadlineSeconds: 5 }, status: { phase: "Running" } } },
      MERGE,
    );
    expect(status.status?.phase).toBe("Running");
    expect(status.spec?.activeDeadlineSeconds).toBeUndefined();

    const immutable = await failure(admin.core.patchNamespacedPod({ name: "split", namespace: "default", body: { spec: { nodeName: "elsewhere" } } }, MERGE));
    expect(immutable.code).toBe(422);
    expect(immutable.body.message).toContain("pod updates may not change fields other than");
  });

  test("a patch carrying a stale resourceVersion is a Conflict", async () => {
    const p = await admin.core.createNamespacedPod({ namespace: "default", body: pod("rv-patch") });
    await admin.core.patchNamespacedPodStatus({ name: "rv-patch", namespace: "default", body: { status: { phase: "Running" } } }, MERGE);
    const stale = await failure(
      admin.core.patchNamespacedPodStatus(
        { name: "rv-patch", namespace: "default", body: { metadata: { resourceVersion: p.metadata!.resourceVersion }, status: { phase: "Failed" } } },
        MERGE,
      ),
    );
    expect(stale.code).toBe(409);
  });

  test("strategic merge patch merges pod status lists by their keys; containerStatuses (no key upstream) are replaced", async () => {
    await admin.core.createNamespacedPod({ namespace: "default", body: pod("smp") });
    await admin.core.patchNamespacedPodStatus(
      {
        name: "smp",
        namespace: "default",
        body: {
          status: {
            conditions: [
              { type: "Ready", status: "False" },
              { type: "Initialized", status: "True" },
            ],
            containerStatuses: [{ name: "c", ready: false, restartCount: 0, image: "busybox", imageID: "", state: {} }],
            podIPs: [{ ip: "10.0.0.1" }],
          },
        },
      },
      SMP,
    );
    const patched = await admin.core.patchNamespacedPodStatus(
      {
        name: "smp",
        namespace: "default",
        body: { status: { conditions: [{ type: "Ready", status: "True" }], containerStatuses: [{ name: "c", ready: true }], podIPs: [{ ip: "fd00::1" }] } },
      },
      SMP,
    );
    expect(patched.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ["Ready", "True"],
      ["Initialized", "True"],
    ]);
    expect(patched.status?.containerStatuses).toEqual([expect.objectContaining({ name: "c", ready: true })]);
    expect(patched.status?.containerStatuses?.[0]?.image).toBeUndefined();
    expect(patched.status?.podIPs?.map((p) => p.ip)).toEqual(["10.0.0.1", "fd00::1"]);

    // The same body as a merge patch replaces the lists.
    const merged = await admin.core.patchNamespacedPodStatus(
      { name: "smp", namespace: "default", body: { status: { conditions: [{ type: "Ready", status: "False" }] } } },
      MERGE,
    );
    expect(merged.status?.conditions?.map((c) => c.type)).toEqual(["Ready"]);
  });

  test("JSON patch applies RFC 6902 operations; a failed test is Invalid", async () => {
    await admin.core.createNamespacedPod({ namespace: "default", body: pod("jp", {}, { labels: { a: "1" } }) });
    const patched = await admin.core.patchNamespacedPod(
      {
        name: "jp",
        namespace: "default",
        body: [
          { op: "test", path: "/metadata/labels/a", value: "1" },
          { op: "add", path: "/metadata/labels/b", value: "2" },
          { op: "remove", path: "/metadata/labels/a" },
        ],
      },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    expect(patched.metadata?.labels).toEqual({ b: "2" });
    const failed = await failure(
      admin.core.patchNamespacedPod(
        { name: "jp", namespace: "default", body: [{ op: "test", path: "/metadata/labels/b", value: "9" }] },
        setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
      ),
    );
    expect(failed.code).toBe(422);
  });
});

describe("patch functions", () => {
  test("strategic merge patch directives: $patch delete and replace, $setElementOrder, $deleteFromPrimitiveList, null", () => {
    const node = {
      metadata: { finalizers: ["a", "b"], labels: { x: "1", y: "2" } },
      status: {
        conditions: [
          { type: "Ready", status: "True" },
          { type: "MemoryPressure", status: "False" },
        ],
        addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
        images: [{ names: ["a"] }],
      },
    };
    const out = strategicMergePatch(
      node,
      {
        metadata: { finalizers: ["c", "a"], "$deleteFromPrimitiveList/finalizers": ["b"], labels: { y: null } },
        status: {
          "$setElementOrder/conditions": [{ type: "MemoryPressure" }, { type: "Ready" }],
          conditions: [
            { type: "Ready", $patch: "delete" },
            { type: "DiskPressure", status: "False" },
          ],
          addresses: [{ type: "Hostname", address: "h" }],
          images: [{ names: ["b"] }],
        },
      },
      "Node",
    ) as typeof node;
    expect(out.metadata.finalizers).toEqual(["a", "c"]);
    expect(out.metadata.labels).toEqual({ x: "1" } as never);
    expect(out.status.conditions.map((c) => c.type)).toEqual(["MemoryPressure", "DiskPressure"]);
    expect(out.status.addresses.map((a) => a.type)).toEqual(["InternalIP", "Hostname"]);
    expect(out.status.images).toEqual([{ names: ["b"] }]);
    const replaced = strategicMergePatch(
      node,
      { status: { conditions: [{ $patch: "replace" }, { type: "Ready", status: "Unknown" }] } },
      "Node",
    ) as typeof node;
    expect(replaced.status.conditions).toEqual([{ type: "Ready", status: "Unknown" }]);
    const replacedMap = strategicMergePatch(node, { metadata: { labels: { $patch: "replace", z: "3" } } }, "Node") as typeof node;
    expect(replacedMap.metadata.labels).toEqual({ z: "3" } as never);
  });

  test("merge patch and JSON patch", () => {
    expect(mergePatch({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { b: null, c: [3] }, e: 2 })).toEqual({ a: { c: [3] }, d: 1, e: 2 });
    expect(
      jsonPatch({ a: [1, 2] }, [
        { op: "add", path: "/a/-", value: 3 },
        { op: "move", from: "/a/0", path: "/b" },
        { op: "copy", from: "/b", path: "/c" },
        { op: "replace", path: "/a/0", value: 9 },
      ]),
    ).toEqual({ a: [9, 3], b: 1, c: 1 });
  });
});

describe("list", () => {
  test("selectors filter, the list carries the current resourceVersion, items carry no kind", async () => {
    await admin.core.createNamespacedPod({
      namespace: "kube-system",
      body: {
        ...pod("sel-a", { nodeName: "sel-n1" }, { labels: { app: "web", tier: "front" } }),
        metadata: { name: "sel-a", labels: { app: "web", tier: "front" } },
      },
    });
    await admin.core.createNamespacedPod({
      namespace: "kube-system",
      body: { ...pod("sel-b", { nodeName: "sel-n2", schedulerName: "mine" }), metadata: { name: "sel-b", labels: { app: "db" } } },
    });
    const names = async (q: { fieldSelector?: string; labelSelector?: string }) =>
      (await admin.core.listNamespacedPod({ namespace: "kube-system", ...q })).items.map((p) => p.metadata?.name);
    expect(await names({ fieldSelector: "spec.nodeName=sel-n1" })).toEqual(["sel-a"]);
    expect(await names({ fieldSelector: "spec.nodeName!=sel-n1,spec.schedulerName==mine" })).toEqual(["sel-b"]);
    expect(await names({ fieldSelector: "status.phase=Pending,metadata.name=sel-b" })).toEqual(["sel-b"]);
    expect(await names({ labelSelector: "app in (web,cache),tier" })).toEqual(["sel-a"]);
    expect(await names({ labelSelector: "app notin (web),!tier" })).toEqual(["sel-b"]);
    expect(await names({ labelSelector: "app!=web" })).toEqual(["sel-b"]);
    const bad = await failure(admin.core.listNamespacedPod({ namespace: "kube-system", fieldSelector: "spec.bogus=1" }));
    expect(bad).toMatchObject({ code: 400, body: { message: "field label not supported: spec.bogus" } });

    const raw = (await (await call("/api/v1/namespaces/kube-system/pods")).json()) as { items: Array<Record<string, unknown>> };
    expect(raw).toMatchObject({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: String(api.store.resourceVersion) } });
    expect(raw.items[0]?.kind).toBeUndefined();
    expect(raw.items[0]?.apiVersion).toBeUndefined();
    expect(raw.items.length).toBe(2);
    const all = await admin.core.listPodForAllNamespaces({ labelSelector: "app" });
    expect(all.items.map((p) => p.metadata?.name).sort()).toEqual(["sel-a", "sel-b"]);
  });
});

describe("watch", () => {
  test("from a resourceVersion: the history after it, then live events, with selector transitions as ADDED/DELETED", async () => {
    const start = api.store.resourceVersion;
    api.store.create("pods", pod("w-1", { nodeName: "wn" }));
    api.store.create("pods", pod("w-2", { nodeName: "other" }));
    const resp = await call(`/api/v1/pods?watch=true&resourceVersion=${start}&fieldSelector=spec.nodeName%3Dwn`);
    expect(resp.headers.get("content-type")).toBe("application/json");
    const reading = readEvents(resp, (ev) => ev.filter((e) => e.type !== "BOOKMARK").length >= 3);
    api.store.patchStatus("pods", "default", "w-1", { status: { phase: "Running" } });
    api.store.delete("pods", "default", "w-1", { gracePeriodSeconds: 0 });
    const events = (await reading).filter((e) => e.type !== "BOOKMARK");
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED w-1", "MODIFIED w-1", "DELETED w-1"]);
    expect(events[0]!.object).toMatchObject({ kind: "Pod", apiVersion: "v1" });
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
  });

  test("resourceVersion 0: synthetic ADDED for what exists; an object leaving the selector is DELETED", async () => {
    api.store.create("pods", pod("w-3", {}, { labels: { watch: "me" } }));
    const resp = await call(`/api/v1/namespaces/default/pods?watch=1&resourceVersion=0&labelSelector=watch%3Dme`);
    const reading = readEvents(resp, (ev) => ev.filter((e) => e.type !== "BOOKMARK").length >= 3);
    api.store.update("pods", { ...api.store.get("pods", "default", "w-3")!, metadata: { ...api.store.get("pods", "default", "w-3")!.metadata, labels: {} } });
    api.store.update("pods", {
      ...api.store.get("pods", "default", "w-3")!,
      metadata: { ...api.store.get("pods", "default", "w-3")!.metadata, labels: { watch: "me" } },
    });
    const events = (await reading).filter((e) => e.type !== "BOOKMARK");
    expect(events.map((e) => e.type)).toEqual(["ADDED", "DELETED", "ADDED"]);
    expect(events[1]!.object.metadata.labels).toEqual({ watch: "me" });
    expect(Number(events[1]!.object.metadata.resourceVersion)).toBeGreaterThan(Number(events[0]!.object.metadata.resourceVersion));
  });

  test("bookmarks carry only the kind and the current resourceVersion; timeoutSeconds ends the stream", async () => {
    const resp = await call(`/api/v1/nodes?watch=true&resourceVersion=${api.store.resourceVersion}&allowWatchBookmarks=true&timeoutSeconds=1`);
    const started = Date.now();
    const events = await readEvents(resp, () => false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(events.length).toBeGreaterThan(2);
    expect(events[0]).toEqual({
      type: "BOOKMARK",
      object: { kind: "Node", apiVersion: "v1", metadata: { resourceVersion: String(api.store.resourceVersion) } },
    });
  });

  test("after compaction a watch from an older resourceVersion gets 200 and one ERROR event with a 410 Expired Status", async () => {
    const old = api.store.resourceVersion;
    api.store.create("pods", pod("w-compact"));
    api.compact();
    const resp = await call(`/api/v1/pods?watch=true&resourceVersion=${old}`);
    expect(resp.status).toBe(200);
    const events = await readEvents(resp, () => false);
    expect(events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `too old resource version: ${old} (${old + 1})`,
          reason: "Expired",
          code: 410,
        },
      },
    ]);
    expect(api.requests.at(-1)).toMatchObject({ verb: "watch", resource: "pods", code: 410 });
    // The current resourceVersion is still watchable.
    const ok = await call(`/api/v1/pods?watch=true&resourceVersion=${api.store.resourceVersion}`);
    expect(ok.status).toBe(200);
    api.dropWatches();
    expect(await readEvents(ok, () => false)).toEqual([]);
  });

  test("dropWatches ends open streams", async () => {
    const resp = await call(`/api/v1/watch/nodes`);
    // The response has started, so the watch is registered.
    const reading = readEvents(resp, () => false);
    api.dropWatches();
    expect((await reading).every((e) => e.type === "ADDED")).toBe(true);
  });
});

describe("delete and binding", () => {
  test("a bound pod is deleted gracefully; a later delete may only shorten the grace; grace 0 removes it", async () => {
    api.store.create("pods", pod("g-1", { nodeName: "gn", terminationGracePeriodSeconds: 20 }));
    const first = (await admin.core.deleteNamespacedPod({ name: "g-1", namespace: "default" })) as Pod;
    expect(first.metadata?.deletionGracePeriodSeconds).toBe(20);
    const ts = new Date(first.metadata!.deletionTimestamp!).getTime();
    expect(Math.abs(ts - (Date.now() + 20_000))).toBeLessThan(2000);
    const longer = (await admin.core.deleteNamespacedPod({ name: "g-1", namespace: "default", gracePeriodSeconds: 60 })) as Pod;
    expect(longer.metadata?.deletionGracePeriodSeconds).toBe(20);
    const shorter = (await admin.core.deleteNamespacedPod({ name: "g-1", namespace: "default", gracePeriodSeconds: 5 })) as Pod;
    expect(shorter.metadata?.deletionGracePeriodSeconds).toBe(5);
    await admin.core.deleteNamespacedPod({ name: "g-1", namespace: "default", gracePeriodSeconds: 0 });
    expect(api.store.get("pods", "default", "g-1")).toBeUndefined();
  });

  test("unbound and terminal pods go at once; preconditions that do not match are a Conflict", async () => {
    api.store.create("pods", pod("g-2"));
    await admin.core.deleteNamespacedPod({ name: "g-2", namespace: "default" });
    expect(api.store.get("pods", "default", "g-2")).toBeUndefined();
    api.store.create("pods", pod("g-3", { nodeName: "gn" }));
    api.store.patchStatus("pods", "default", "g-3", { status: { phase: "Succeeded" } });
    const wrongUid = await failure(admin.core.deleteNamespacedPod({ name: "g-3", namespace: "default", body: { preconditions: { uid: "not-it" } } }));
    expect(wrongUid.code).toBe(409);
    expect(wrongUid.body.message).toContain("Precondition failed: UID in precondition: not-it");
    await admin.core.deleteNamespacedPod({ name: "g-3", namespace: "default" });
    expect(api.store.get("pods", "default", "g-3")).toBeUndefined();
  });

  test("binding sets spec.nodeName and PodScheduled=True; binding again is a Conflict", async () => {
    api.store.create("pods", pod("b-1"));
    const status = await call("/api/v1/namespaces/default/pods/b-1/binding", {
      method: "POST",
      body: JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "b-1" }, target: { kind: "Node", name: "bn" } }),
      headers: { "Content-Type": "application/json" },
    });
    expect(status.status).toBe(201);
    expect(await status.json()).toMatchObject({ kind: "Status", status: "Success" });
    const bound = api.store.get("pods", "default", "b-1") as Pod;
    expect(bound.spec?.nodeName).toBe("bn");
    expect(bound.status?.conditions).toContainEqual(expect.objectContaining({ type: "PodScheduled", status: "True" }));
    const again = await failure(
      admin.core.createNamespacedBinding({ namespace: "default", body: { metadata: { name: "b-1" }, target: { kind: "Node", name: "other" } } }),
    );
    expect(again).toMatchObject({
      code: 409,
      body: { message: 'Operation cannot be fulfilled on pods/binding "b-1": pod b-1 is already assigned to node "bn"' },
    });
  });
});

describe("authentication and authorization", () => {
  test("no token or an unknown token is 401 with a Status", async () => {
    const none = await fetch(api.url + "/api/v1/pods", { tls: { ca: api.caPem } } as RequestInit);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    // The generated client reports a 401 without its body (the OpenAPI spec declares none).
    const bogus = await clientFor("bogus", "bogus");
    expect(
      await bogus.core.listNode({}).then(
        () => 0,
        (e: { code: number }) => e.code,
      ),
    ).toBe(401);
  });

  test("a node: its own pods by field selector, its own Node and Lease, mirror pods, events; nothing else", async () => {
    const n1 = await clientFor(api.nodeToken("auth-n1"), "auth-n1");
    const node = await n1.core.createNode({ body: { metadata: { name: "auth-n1" } } });
    expect((await failure(n1.core.createNode({ body: { metadata: { name: "auth-n2" } } }))).body.message).toBe(
      'nodes "auth-n2" is forbidden: node "auth-n1" is not allowed to modify node "auth-n2"',
    );
    await n1.core.patchNodeStatus({ name: "auth-n1", body: { status: { conditions: [{ type: "Ready", status: "True" }] } } }, SMP);
    expect((await n1.core.listNode({})).items.length).toBeGreaterThan(0);

    const list = await failure(n1.core.listPodForAllNamespaces({}));
    expect(list).toMatchObject({
      code: 403,
      body: {
        reason: "Forbidden",
        message:
          'pods is forbidden: User "system:node:auth-n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
      },
    });
    api.store.create("pods", pod("mine", { nodeName: "auth-n1" }));
    api.store.create("pods", pod("theirs", { nodeName: "auth-n2" }));
    expect((await n1.core.listPodForAllNamespaces({ fieldSelector: "spec.nodeName=auth-n1" })).items.map((p) => p.metadata?.name)).toEqual(["mine"]);
    await n1.core.readNamespacedPod({ name: "mine", namespace: "default" });
    const other = await failure(n1.core.readNamespacedPod({ name: "theirs", namespace: "default" }));
    expect(other.body.message).toBe(
      `pods "theirs" is forbidden: User "system:node:auth-n1" cannot get resource "pods" in API group "" in the namespace "default": no relationship found between node 'auth-n1' and this object`,
    );
    await n1.core.patchNamespacedPodStatus({ name: "mine", namespace: "default", body: { status: { phase: "Running" } } }, SMP);
    expect((await failure(n1.core.patchNamespacedPodStatus({ name: "theirs", namespace: "default", body: { status: { phase: "Running" } } }, SMP))).code).toBe(
      403,
    );
    expect((await failure(n1.core.patchNamespacedPod({ name: "mine", namespace: "default", body: { metadata: { labels: { a: "b" } } } }, SMP))).code).toBe(403);
    expect((await failure(n1.core.deleteNamespacedPod({ name: "theirs", namespace: "default" }))).code).toBe(403);
    expect(
      (await failure(n1.core.createNamespacedBinding({ namespace: "default", body: { metadata: { name: "theirs" }, target: { name: "auth-n1" } } }))).code,
    ).toBe(403);

    const plain = await failure(n1.core.createNamespacedPod({ namespace: "default", body: pod("plain", { nodeName: "auth-n1" }) }));
    expect(plain.body.message).toBe(
      'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "auth-n1" can only create mirror pods',
    );
    const owner = { apiVersion: "v1", kind: "Node", name: "auth-n1", uid: node.metadata!.uid!, controller: true };
    const mirror = (name: string, extra: Partial<V1Pod["spec"]> = {}) =>
      pod(name, { nodeName: "auth-n1", ...extra }, { annotations: { "kubernetes.io/config.mirror": "hash" }, ownerReferences: [owner] });
    await n1.core.createNamespacedPod({ namespace: "default", body: mirror("static-auth-n1") });
    const secret = await failure(
      n1.core.createNamespacedPod({ namespace: "default", body: mirror("secret-auth-n1", { volumes: [{ name: "s", secret: { secretName: "x" } }] }) }),
    );
    expect(secret.body.message).toContain('node "auth-n1" can not create pods that reference secrets');
    const noOwner = await failure(
      n1.core.createNamespacedPod({
        namespace: "default",
        body: { ...mirror("no-owner"), metadata: { name: "no-owner", annotations: { "kubernetes.io/config.mirror": "h" } } },
      }),
    );
    expect(noOwner.code).toBe(403);

    const lease: V1Lease = { metadata: { name: "auth-n1", namespace: "kube-node-lease" }, spec: { holderIdentity: "auth-n1", leaseDurationSeconds: 40 } };
    await n1.coordination.createNamespacedLease({ namespace: "kube-node-lease", body: lease });
    await n1.coordination.readNamespacedLease({ name: "auth-n1", namespace: "kube-node-lease" });
    expect((await failure(n1.coordination.readNamespacedLease({ name: "auth-n2", namespace: "kube-node-lease" }))).code).toBe(403);
    expect(
      (await failure(n1.coordination.createNamespacedLease({ namespace: "kube-node-lease", body: { ...lease, metadata: { name: "auth-n2" } } }))).code,
    ).toBe(403);

    await n1.core.createNamespacedEvent({
      namespace: "default",
      body: { metadata: { name: "e1" }, involvedObject: { kind: "Pod", name: "mine" }, reason: "Started" },
    });
    await n1.events.createNamespacedEvent({
      namespace: "default",
      body: {
        metadata: { name: "e2" },
        eventTime: new Date() as never,
        reportingController: "kubelet",
        reportingInstance: "auth-n1",
        action: "Started",
        reason: "Started",
      },
    });
    expect((await failure(n1.core.listNamespace({}))).code).toBe(403);
  });

  test("the scheduler: read pods and nodes, bind, patch pod status, events; not create or delete pods", async () => {
    const s = await clientFor(api.schedulerToken, "sched");
    api.store.create("pods", pod("to-schedule"));
    await s.core.listPodForAllNamespaces({ fieldSelector: "spec.schedulerName=default-scheduler,spec.nodeName=" });
    await s.core.createNamespacedBinding({ namespace: "default", body: { metadata: { name: "to-schedule" }, target: { kind: "Node", name: "sn" } } });
    await s.core.patchNamespacedPodStatus(
      { name: "to-schedule", namespace: "default", body: { status: { conditions: [{ type: "PodScheduled", status: "True" }] } } },
      SMP,
    );
    await s.events.createNamespacedEvent({
      namespace: "default",
      body: {
        metadata: { name: "s-e" },
        eventTime: new Date() as never,
        reportingController: "s",
        reportingInstance: "s",
        action: "Binding",
        reason: "Scheduled",
      },
    });
    const create = await failure(s.core.createNamespacedPod({ namespace: "default", body: pod("nope") }));
    expect(create.body.message).toBe(
      'pods is forbidden: User "system:kube-scheduler" cannot create resource "pods" in API group "" in the namespace "default"',
    );
    expect((await failure(s.core.deleteNamespacedPod({ name: "to-schedule", namespace: "default" }))).code).toBe(403);
  });
});

describe("fault hooks", () => {
  test("failNext answers the matching requests with the code, `times` times; requests are logged", async () => {
    api.store.create("pods", pod("f-1", { nodeName: "fn" }));
    api.failNext({ verb: "patch", resource: "pods", subresource: "status" }, 409, 2);
    const patch = () => admin.core.patchNamespacedPodStatus({ name: "f-1", namespace: "default", body: { status: { phase: "Running" } } }, SMP);
    expect((await failure(patch())).body).toMatchObject({ reason: "Conflict" });
    expect((await failure(patch())).code).toBe(409);
    await admin.core.readNamespacedPod({ name: "f-1", namespace: "default" });
    expect((await patch()).status?.phase).toBe("Running");
    expect(api.requests.slice(-4).map((r) => `${r.verb} ${r.subresource ?? ""} ${r.code}`)).toEqual([
      "patch status 409",
      "patch status 409",
      "get  200",
      "patch status 200",
    ]);
    expect(api.requests.at(-1)).toMatchObject({ resource: "pods", namespace: "default", name: "f-1", user: "admin" });
  });

  test("down() refuses connections and up() serves again on the same port with the same objects", async () => {
    const url = api.url;
    await api.down();
    expect(
      await fetch(url + "/healthz", { tls: { ca: api.caPem } } as RequestInit).then(
        () => "ok",
        () => "refused",
      ),
    ).toBe("refused");
    await api.up();
    expect(api.url).toBe(url);
    expect((await admin.core.readNamespacedPod({ name: "f-1", namespace: "default" })).metadata?.name).toBe("f-1");
  });

  test("plain HTTP when tls is false", async () => {
    const plain = await TestApiServer.start({ tls: false });
    try {
      expect(plain.url).toStartWith("http://");
      const resp = await fetch(plain.url + "/api/v1/namespaces", { headers: { Authorization: `Bearer ${plain.adminToken}` } });
      expect(((await resp.json()) as { items: Node[] }).items.map((n) => n.metadata?.name)).toEqual([
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
      ]);
    } finally {
      await plain.stop();
    }
  });
});
