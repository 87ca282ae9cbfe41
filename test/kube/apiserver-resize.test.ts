// The test API server's pods/resize subresource (1.36's ResizeStrategy and ValidatePodResize, then the
// NodeDeclaredFeatures and PodResize admission plugins), through fetch where the exact Status matters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { TestApiServer } from "../fakes/apiserver";

let api: TestApiServer;

/** A node as the agent registers it: linux, 2 cpus and 4Gi allocatable. */
function addNode(name: string, labels: Record<string, string> = { "kubernetes.io/os": "linux" }, allocatable = { cpu: "2", memory: "4Gi", pods: "110" }) {
  api.store.create("nodes", { apiVersion: "v1", kind: "Node", metadata: { name, labels } });
  api.store.patchStatus("nodes", undefined, name, { status: { allocatable, capacity: allocatable } });
}

beforeAll(async () => {
  api = await TestApiServer.start();
  addNode("n1");
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

  test("the QoS class may not change; requests within limits; requests and limits may not be removed; only cpu and memory", async () => {
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
    const overLimit = await resize("p2", { spec: { containers: [{ name: "c", resources: { requests: { cpu: "300m" } } }] } });
    expect(overLimit.code).toBe(422);
    expect(overLimit.body.message).toBe(
      'Pod "p2" is invalid: spec.containers[0].resources.requests: Invalid value: "300m": must be less than or equal to cpu limit of 200m',
    );
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

  test("a resizePolicy change is refused (only cpu and memory); a windows pod cannot be resized", async () => {
    api.store.create("pods", pod("policy"));
    api.store.patchStatus("pods", "default", "policy", running(true));
    const r = await resize("policy", { spec: { containers: [{ name: "c", resizePolicy: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }] }] } });
    expect(r.code).toBe(422);
    expect(r.body.message).toBe('Pod "policy" is invalid: spec: Forbidden: only cpu and memory resources are mutable');
    api.store.create("pods", pod("win", { os: { name: "windows" } }));
    const win = await resize("win", cpuLimit("300m"));
    expect(win.code).toBe(422);
    expect(win.body.message).toBe('Pod "win" is invalid: : Forbidden: windows pods cannot be resized');
  });

  test("pod-level resources: their requests may not be removed; a change needs a node declaring InPlacePodLevelResourcesVerticalScaling", async () => {
    api.store.create("pods", pod("podlevel", { resources: { requests: { cpu: "100m" }, limits: { cpu: "1" } } } as Partial<Pod["spec"]>));
    api.store.patchStatus("pods", "default", "podlevel", running(true));
    const gone = await answer("/api/v1/namespaces/default/pods/podlevel/resize", {
      method: "PATCH",
      body: JSON.stringify([{ op: "remove", path: "/spec/resources/requests" }]),
      headers: { "Content-Type": "application/json-patch+json" },
    });
    expect(gone.code).toBe(422);
    expect(gone.body.message).toBe('Pod "podlevel" is invalid: spec.resources.requests: Forbidden: pod-level resource requests cannot be removed');
    const grown = await resize("podlevel", { spec: { resources: { limits: { cpu: "1500m" } } } });
    expect(grown.code).toBe(403);
    expect(grown.body.message).toBe(
      'pods "podlevel" is forbidden: pod update requires features InPlacePodLevelResourcesVerticalScaling which are not available on node "n1"',
    );
  });
});

describe("pods/resize: the PodResize admission plugin", () => {
  test("requests beyond the node's allocatable: 403 with cause NodeCapacity, nothing stored", async () => {
    api.store.create("pods", pod("rz"));
    api.store.patchStatus("pods", "default", "rz", running(true));
    const r = await resize("rz", { spec: { containers: [{ name: "c", resources: { requests: { cpu: "50" }, limits: { cpu: "50" } } }] } });
    expect(r.code).toBe(403);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'pods "rz" is forbidden: node didn\'t have enough allocatable resources: cpu, requested: 50000, allocatable: 2000',
      reason: "Forbidden",
      details: { name: "rz", kind: "pods", causes: [{ reason: "NodeCapacity" }] },
      code: 403,
    });
    const both = await resize("rz", {
      spec: { containers: [{ name: "c", resources: { requests: { cpu: "3", memory: "5Gi" }, limits: { cpu: "3", memory: "6Gi" } } }] },
    });
    expect(both.body.message).toBe(
      'pods "rz" is forbidden: node didn\'t have enough allocatable resources: cpu, requested: 3000, allocatable: 2000; memory, requested: 5368709120, allocatable: 4294967296',
    );
    expect((api.store.get("pods", "default", "rz") as Pod).metadata!.generation).toBe(1);
    // Exactly the allocatable fits.
    const fits = await resize("rz", { spec: { containers: [{ name: "c", resources: { requests: { cpu: "2" }, limits: { cpu: "2" } } }] } });
    expect(fits.code).toBe(200);
    expect(fits.body.metadata.generation).toBe(2);
  });

  test("the requests are PodRequests: sidecars summed, a regular init container with the sidecars before it where larger", async () => {
    const req = (cpu: string) => ({ requests: { cpu }, limits: { cpu } });
    const twoInits = (name: string, initCpu: string) =>
      pod(name, {
        initContainers: [
          { name: "side", image: "busybox", restartPolicy: "Always", resources: req("500m") },
          { name: "init", image: "busybox", resources: req(initCpu) },
        ],
      });
    api.store.create("pods", twoInits("sum", "100m"));
    api.store.patchStatus("pods", "default", "sum", running(true));
    const c = (cpu: string) => ({ spec: { containers: [{ name: "c", resources: { requests: { cpu }, limits: { cpu } } }] } });
    // The app container and the sidecar: 1500m + 500m fits 2 cpus exactly; 1600m + 500m does not.
    expect((await resize("sum", c("1500m"))).code).toBe(200);
    const r = await resize("sum", c("1600m"));
    expect(r.code).toBe(403);
    expect(r.body.message).toBe('pods "sum" is forbidden: node didn\'t have enough allocatable resources: cpu, requested: 2100, allocatable: 2000');
    // An init container of 1900m after the 500m sidecar: 2400m while it runs, whatever the app asks.
    api.store.create("pods", twoInits("peak", "1900m"));
    api.store.patchStatus("pods", "default", "peak", running(true));
    const peak = await resize("peak", cpuLimit("300m"));
    expect(peak.code).toBe(403);
    expect(peak.body.message).toBe('pods "peak" is forbidden: node didn\'t have enough allocatable resources: cpu, requested: 2400, allocatable: 2000');
  });

  test("a node that is not linux: UnsupportedPlatform; a node that does not exist: not found; an unbound pod is not checked", async () => {
    addNode("win-node", { "kubernetes.io/os": "windows" });
    api.store.create("pods", pod("on-windows", { nodeName: "win-node" }));
    const win = await resize("on-windows", cpuLimit("300m"));
    expect(win.code).toBe(403);
    expect(win.body.message).toBe('pods "on-windows" is forbidden: pod resize is only supported on linux nodes, node "win-node" is "windows"');
    expect(win.body.details.causes).toEqual([{ reason: "UnsupportedPlatform" }]);
    api.store.create("pods", pod("nowhere", { nodeName: "gone" }));
    const gone = await resize("nowhere", cpuLimit("300m"));
    expect(gone.code).toBe(403);
    expect(gone.body.message).toBe('pods "nowhere" is forbidden: node "gone" not found');
    expect(gone.body.details.causes).toBeUndefined();
    api.store.create("pods", pod("unbound", { nodeName: undefined }));
    expect((await resize("unbound", { spec: { containers: [{ name: "c", resources: { requests: { cpu: "50" }, limits: { cpu: "50" } } }] } })).code).toBe(200);
  });
});
