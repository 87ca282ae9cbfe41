// The test API server's authentication, authorization and fault hooks, as test/kube/apiserver.test.ts.
import { describe, expect, test } from "bun:test";
import type { V1Lease, V1Pod } from "@kubernetes/client-node";
import type { Node } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";
import { admin, api, clientFor, failure, pod, SMP, useApiServer } from "./apiserver-harness";

useApiServer();

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
