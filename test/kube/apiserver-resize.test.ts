// The test API server's pods/resize subresource (1.36's ResizeStrategy and ValidatePodResize, then the
// NodeDeclaredFeatures admission), through fetch where the exact Status matters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;

beforeAll(async () => {
  api = await TestApiServer.start();
});
afterAll(() => api.stop());

async function answer(path: string, init: RequestInit = {}): Promise<{ code: number; body: any }> {
  const resp = await fetch(api.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${api.adminToken}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
    tls: { ca: api.caPem },
  } as RequestInit);
  return { code: resp.status, body: await resp.json() };
}

const resize = (name: string, patch: unknown) =>
  answer(`/api/v1/namespaces/default/pods/${name}/resize`, {
    method: "PATCH",
    body: JSON.stringify(patch),
    headers: { "Content-Type": "application/strategic-merge-patch+json" },
  });

function pod(name: string, extra: Partial<Pod["spec"]> = {}): Pod {
  return {
    metadata: { name, namespace: "default", labels: { a: "b" } },
    spec: {
      nodeName: "n1",
      containers: [{ name: "c", image: "busybox", resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } } }],
      ...extra,
    },
  } as Pod;
}

/** The container status a node reports for a running container, with or without `resources`. */
function running(withResources: boolean) {
  return {
    status: {
      phase: "Running",
      qosClass: "Burstable",
      containerStatuses: [
        {
          name: "c",
          image: "busybox",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: "2026-01-01T00:00:00Z" } },
          ...(withResources ? { resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } } } : {}),
        },
      ],
    },
  };
}

const cpuLimit = (v: string) => ({ spec: { containers: [{ name: "c", resources: { limits: { cpu: v } } }] } });

describe("pods/resize", () => {
  test("a running pod whose node reports no container resources: Pod running on node without support for resize", async () => {
    api.store.create("pods", pod("old-node"));
    api.store.patchStatus("pods", "default", "old-node", running(false));
    const r = await resize("old-node", cpuLimit("300m"));
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Pod "old-node" is invalid: spec: Forbidden: Pod running on node without support for resize');
  });

  test("admitted: only resources change, the generation goes up, status and metadata are kept; GET answers the pod", async () => {
    api.store.create("pods", pod("p1"));
    api.store.patchStatus("pods", "default", "p1", running(true));
    const r = await resize("p1", {
      metadata: { labels: { x: "y" } },
      spec: { activeDeadlineSeconds: 5, containers: [{ name: "c", image: "other", resources: { limits: { cpu: "300m" } } }] },
    });
    expect(r.code).toBe(200);
    expect(r.body.spec.containers[0].resources.limits.cpu).toBe("300m");
    expect(r.body.spec.containers[0].image).toBe("busybox");
    expect(r.body.spec.activeDeadlineSeconds).toBeUndefined();
    expect(r.body.metadata.labels).toEqual({ a: "b" });
    expect(r.body.metadata.generation).toBe(2);
    expect(r.body.status.containerStatuses[0].resources.limits.cpu).toBe("200m");
    const got = await answer("/api/v1/namespaces/default/pods/p1/resize");
    expect(got.body.metadata.generation).toBe(2);
    // The same resources again: nothing changes, the generation stays.
    expect((await resize("p1", cpuLimit("300m"))).body.metadata.generation).toBe(2);
  });

  test("the QoS class may not change; requests and limits may not be removed; only cpu and memory", async () => {
    api.store.create("pods", pod("p2"));
    api.store.patchStatus("pods", "default", "p2", running(true));
    const guaranteed = await resize("p2", { spec: { containers: [{ name: "c", resources: { requests: { cpu: "200m", memory: "128Mi" } } }] } });
    expect(guaranteed.code).toBe(422);
    expect(guaranteed.body.message).toBe('Pod "p2" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing');
    const removed = await answer("/api/v1/namespaces/default/pods/p2/resize", {
      method: "PATCH",
      body: JSON.stringify([{ op: "remove", path: "/spec/containers/0/resources/limits/memory" }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(removed.code).toBe(422);
    expect(removed.body.message).toBe('Pod "p2" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed');
    const storage = await resize("p2", { spec: { containers: [{ name: "c", resources: { limits: { "ephemeral-storage": "1Gi" } } }] } });
    expect(storage.code).toBe(422);
    expect(storage.body.message).toBe('Pod "p2" is invalid: spec: Forbidden: only cpu and memory resources are mutable');
  });

  test("a mirror pod cannot be resized", async () => {
    const p = pod("mirror");
    p.metadata!.annotations = { "kubernetes.io/config.mirror": "abc" };
    api.store.create("pods", p);
    const r = await resize("mirror", cpuLimit("300m"));
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Pod "mirror" is invalid: : Forbidden: static pods cannot be resized');
  });

  test("a sidecar may be resized; a regular init container needs a node that declares InPlacePodVerticalScalingInitContainers", async () => {
    const res = { requests: { cpu: "50m" }, limits: { cpu: "100m" } };
    api.store.create(
      "pods",
      pod("inits", {
        initContainers: [
          { name: "init", image: "busybox", resources: res },
          { name: "side", image: "busybox", restartPolicy: "Always", resources: res },
        ],
      }),
    );
    api.store.patchStatus("pods", "default", "inits", running(true));
    const side = await resize("inits", { spec: { initContainers: [{ name: "side", resources: { limits: { cpu: "150m" } } }] } });
    expect(side.code).toBe(200);
    expect(side.body.spec.initContainers[1].resources.limits.cpu).toBe("150m");
    const init = await resize("inits", { spec: { initContainers: [{ name: "init", resources: { limits: { cpu: "150m" } } }] } });
    expect(init.code).toBe(403);
    expect(init.body.message).toBe(
      'pods "inits" is forbidden: pod update requires features InPlacePodVerticalScalingInitContainers which are not available on node "n1"',
    );
  });
});
