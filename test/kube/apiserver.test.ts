// The test API server's wire behaviour, through @kubernetes/client-node where the generated client
// exposes it and through fetch where the exact bytes matter (watch streams, Status bodies).
import { describe, expect, test } from "bun:test";
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import type { Pod } from "kubernetes-types/core/v1";
import { jsonPatch, mergePatch, strategicMergePatch } from "../fakes/apiserver/patch";
import { admin, api, call, failure, MERGE, pod, readEvents, SMP, useApiServer } from "./apiserver-harness";

useApiServer();

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
