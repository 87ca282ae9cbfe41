import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { isExtendedResourceName } from "../../src/api";
import { applyHealth, nodeStatusChanged, nodeStatusPatch, reconcileExistingNode, withReportedStatus } from "../../src/nodestatus/status-update";
import { builtNode } from "../cluster/node-fixtures";

const healthy = { ready: true, message: "" };
const T1 = "2026-01-01T00:00:10Z";
const T2 = "2026-01-01T00:00:20Z";

function ready(node: Node) {
  return node.status!.conditions!.find((c) => c.type === "Ready")!;
}

describe("withReportedStatus", () => {
  test("keeps lastTransitionTime while a condition holds, moves the heartbeat", () => {
    const first = withReportedStatus({ metadata: { name: "n1" }, status: {} }, builtNode(), healthy, T1);
    const second = withReportedStatus(first, builtNode(), healthy, T2);
    expect(ready(second)).toMatchObject({ status: "True", lastTransitionTime: T1, lastHeartbeatTime: T2 });
  });

  test("health failure turns Ready False with the PLEG message and a new transition time", () => {
    const first = withReportedStatus({ metadata: { name: "n1" }, status: {} }, builtNode(), healthy, T1);
    const msg = "PLEG is not healthy: pleg was last seen active 3m1s ago; threshold is 3m0s";
    const second = withReportedStatus(first, builtNode(), { ready: false, message: msg }, T2);
    expect(ready(second)).toMatchObject({ status: "False", reason: "KubeletNotReady", message: msg, lastTransitionTime: T2 });
  });

  test("keeps conditions and capacity keys the agent does not own", () => {
    const api: Node = {
      metadata: { name: "n1" },
      status: {
        capacity: { "example.com/gpu": "2", cpu: "2" },
        conditions: [{ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" }],
      },
    };
    const next = withReportedStatus(api, builtNode(), healthy, T1);
    expect(next.status!.capacity).toEqual({ "example.com/gpu": "2", cpu: "4", memory: "8Gi", pods: "110" });
    expect(next.status!.conditions!.map((c) => c.type)).toEqual(["NetworkUnavailable", "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
  });
});

test("the eviction manager's MemoryPressure reaches the API's Node as a condition only: the agent never taints (the node lifecycle controller does)", () => {
  const built = builtNode();
  built.status!.conditions![0] = {
    type: "MemoryPressure",
    status: "True",
    reason: "KubeletHasInsufficientMemory",
    message: "kubelet has insufficient memory available",
    lastHeartbeatTime: T2,
    lastTransitionTime: T2,
  };
  const first = withReportedStatus({ metadata: { name: "n1" }, status: {} }, builtNode(), healthy, T1);
  const api: Node = { ...first, spec: { taints: [{ key: "node.kubernetes.io/memory-pressure", effect: "NoSchedule" }] } };
  const next = withReportedStatus(api, built, healthy, T2);
  expect(next.status!.conditions!.find((c) => c.type === "MemoryPressure")).toMatchObject({
    status: "True",
    reason: "KubeletHasInsufficientMemory",
    lastTransitionTime: T2,
  });
  expect(next.spec).toEqual(api.spec);
  expect(nodeStatusChanged(first.status!, next.status!)).toBe(true);
  const patch = JSON.stringify(nodeStatusPatch(first, next));
  expect(patch).toContain("KubeletHasInsufficientMemory");
  expect(patch).not.toContain("taints");
});

test("applyHealth aggregates runtime errors and the health message like utilerrors", () => {
  const notReady = { type: "Ready", status: "False", reason: "KubeletNotReady", message: "container runtime is down: refused" };
  expect(applyHealth(notReady, { ready: false, message: "PLEG is not healthy" }).message).toBe("[container runtime is down: refused, PLEG is not healthy]");
  expect(applyHealth(notReady, healthy)).toBe(notReady);
});

describe("nodeStatusChanged", () => {
  test("heartbeat times alone are no change; anything else is", () => {
    const a = withReportedStatus({ metadata: { name: "n1" }, status: {} }, builtNode(), healthy, T1);
    const b = withReportedStatus(a, builtNode(), healthy, T2);
    expect(nodeStatusChanged(a.status, b.status)).toBe(false);
    const c = withReportedStatus(a, builtNode({ cpu: "8" }), healthy, T2);
    expect(nodeStatusChanged(a.status, c.status)).toBe(true);
  });

  test("an empty list or map built is no change from the API's copy, which leaves it out (omitempty)", () => {
    // A hollow node has no images: it builds `images: []`, and the API server reads back no images at all.
    const built = withReportedStatus({ metadata: { name: "n1" }, status: {} }, builtNode(), healthy, T1);
    const fromApi = structuredClone(built.status!);
    built.status!.images = [];
    built.status!.volumesInUse = [];
    delete fromApi.images;
    expect(nodeStatusChanged(fromApi, built.status)).toBe(false);
    // An image that appears is a change.
    built.status!.images = [{ names: ["registry.k8s.io/pause:3.10"], sizeBytes: 1 }];
    expect(nodeStatusChanged(fromApi, built.status)).toBe(true);
  });
});

describe("nodeStatusPatch", () => {
  const base = withReportedStatus({ metadata: { name: "n1", uid: "u1" }, status: {} }, builtNode(), healthy, T1);

  test("sends only what changed, conditions by type, with the uid precondition", () => {
    const next = withReportedStatus(base, builtNode({ cpu: "8" }), healthy, T2);
    const patch = nodeStatusPatch(base, next)!;
    expect(patch.metadata).toEqual({ uid: "u1" });
    const status = patch.status as Record<string, unknown>;
    expect(status.capacity).toEqual({ cpu: "8" });
    expect(status.allocatable).toEqual({ cpu: "8" });
    expect(status.conditions).toHaveLength(4);
    expect((status.conditions as Array<Record<string, unknown>>)[0]).toEqual({ type: "MemoryPressure", lastHeartbeatTime: T2 });
    expect(status.nodeInfo).toBeUndefined();
    expect(status.images).toBeUndefined();
  });

  test("replaces addresses as a whole list", () => {
    const next = withReportedStatus(base, builtNode({ internalIP: "10.0.0.6" }), healthy, T1);
    expect((nodeStatusPatch(base, next)!.status as Record<string, unknown>).addresses).toEqual([
      { type: "InternalIP", address: "10.0.0.6" },
      { type: "Hostname", address: "n1" },
      { $patch: "replace" },
    ]);
  });

  test("nothing to send when nothing changed", () => {
    expect(nodeStatusPatch(base, structuredClone(base))).toBeUndefined();
  });
});

describe("reconcileExistingNode", () => {
  test("default labels follow the host, other labels, taints and annotations stay, extended resources are zeroed", () => {
    const existing: Node = {
      metadata: { name: "n1", uid: "u1", labels: { "kubernetes.io/hostname": "old", team: "a" }, annotations: { note: "x" } },
      spec: { taints: [{ key: "admin", effect: "NoExecute" }], podCIDR: "10.244.1.0/24" },
      status: { capacity: { cpu: "4", "example.com/gpu": "2" }, allocatable: { cpu: "4", "example.com/gpu": "2" } },
    };
    const out = reconcileExistingNode(existing, builtNode())!;
    expect(out.metadata!.labels).toMatchObject({ "kubernetes.io/hostname": "n1", team: "a", "kubernetes.io/os": "linux" });
    expect(out.metadata!.annotations).toEqual({ note: "x" });
    expect(out.spec).toEqual(existing.spec!);
    expect(out.status!.capacity).toEqual({ cpu: "4", "example.com/gpu": "0" });
    expect(out.status!.allocatable!["example.com/gpu"]).toBe("0");
  });

  test("undefined when the existing node already agrees", () => {
    const built = builtNode();
    expect(reconcileExistingNode({ metadata: built.metadata, status: { capacity: { cpu: "4" }, allocatable: { cpu: "4" } } }, built)).toBeUndefined();
  });

  test("extended resource names", () => {
    expect(isExtendedResourceName("example.com/gpu")).toBe(true);
    expect(isExtendedResourceName("kubernetes.io/foo")).toBe(false);
    expect(isExtendedResourceName("hugepages-2Mi")).toBe(false);
    expect(isExtendedResourceName("cpu")).toBe(false);
  });
});
