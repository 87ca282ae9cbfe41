// MirrorPods against the test API server with the node's own token: NodeRestriction admits a node's
// mirror pods only with the mirror annotation, spec.nodeName of the node and the Node as controller.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { MirrorPods } from "../../src/cluster/mirror-pods";
import { CONFIG_MIRROR_ANNOTATION } from "../../src/api/annotations";
import { podsEnv, staticPod, type PodsEnv } from "./pods-env";

let env: PodsEnv;
let mirrors: MirrorPods;

beforeEach(async () => {
  env = await podsEnv();
  mirrors = new MirrorPods({ client: env.recording, apiPods: env.view, nodeName: "n1", nodeUid: async () => env.nodeUid, log: env.log });
});

afterEach(() => env.close());

const mirrorPod = () => env.storedPod("etcd-n1", "kube-system");
/** Waits until the informer shows the stored mirror pod, as the next pass will see it. */
const seen = (pod: Pod | undefined) =>
  env.until(() => !!pod && env.view.get("etcd-n1", "kube-system")?.metadata?.uid === pod.metadata?.uid, "informer to see the mirror pod");

describe("MirrorPods", () => {
  test("a running static pod gets a mirror pod owned by the Node, with its hash", async () => {
    const sp = staticPod("etcd", "hash-1");
    await mirrors.syncStaticPod(sp);
    const m = mirrorPod();
    expect(m?.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBe("hash-1");
    expect(m?.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "n1", uid: env.nodeUid, controller: true }]);
    expect(m?.metadata?.labels).toEqual({ tier: "control-plane" });
    expect(m?.spec?.nodeName).toBe("n1");
    expect(env.api.requests.find((r) => r.verb === "create" && r.resource === "pods")).toMatchObject({ code: 201, user: "system:node:n1" });

    await seen(m);
    expect(mirrors.mirrorOf(sp)?.metadata?.uid).toBe(m!.metadata!.uid!);
    // Current already: nothing more is written.
    await mirrors.syncStaticPod(sp);
    expect(env.writes.length).toBe(1);
  });

  test("a mirror pod deleted in the API is created again", async () => {
    const sp = staticPod("etcd", "hash-1");
    await mirrors.syncStaticPod(sp);
    const first = mirrorPod()!;
    await seen(first);

    env.api.store.delete("pods", "kube-system", "etcd-n1", { gracePeriodSeconds: 0 });
    await env.until(() => !!mirrorPod() && mirrorPod()!.metadata!.uid !== first.metadata!.uid, "the mirror pod to come back");
    expect(mirrorPod()?.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBe("hash-1");
  });

  test("an edited manifest (new hash) replaces the mirror pod: UID-guarded delete, then create", async () => {
    await mirrors.syncStaticPod(staticPod("etcd", "hash-1"));
    const old = mirrorPod()!;
    await seen(old);

    await mirrors.syncStaticPod(staticPod("etcd", "hash-2", "busybox:2"));
    const now = mirrorPod();
    expect(now?.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION]).toBe("hash-2");
    expect(now?.spec?.containers[0]?.image).toBe("busybox:2");
    expect(now?.metadata?.uid).not.toBe(old.metadata!.uid!);
    expect(env.writes.map((w) => w.verb)).toEqual(["create", "delete", "create"]);
    expect(env.writes[1]!.body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: old.metadata!.uid! } });
  });

  test("a mirror pod whose static pod is gone is deleted; one still terminating is kept", async () => {
    const sp = staticPod("etcd", "hash-1");
    await mirrors.syncStaticPod(sp);
    await seen(mirrorPod());

    // Still terminating: the agent still has the static pod, so its mirror pod stays.
    await mirrors.reconcile([sp], () => true);
    expect(mirrorPod()).toBeDefined();

    await mirrors.reconcile([]);
    expect(mirrorPod()).toBeUndefined();
    expect(env.writes.at(-1)?.verb).toBe("delete");
    // A static pod the agent no longer has is not brought back when the informer sees its mirror pod go.
    await env.until(() => env.view.get("etcd-n1", "kube-system") === undefined, "informer to see the delete");
    expect(env.writes.filter((w) => w.verb === "create").length).toBe(1);
  });

  test("a regular API pod holding the name is left alone", async () => {
    env.api.store.create("pods", {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "etcd-n1", namespace: "kube-system" },
      spec: { nodeName: "n1", containers: [{ name: "x", image: "busybox" }] },
    });
    await env.until(() => !!env.view.get("etcd-n1", "kube-system"), "informer to see the pod");
    await mirrors.reconcile([staticPod("etcd", "hash-1")]);
    expect(env.writes).toEqual([]);
    expect(env.warnings.some((w) => w.includes("not a mirror pod"))).toBe(true);
  });
});
