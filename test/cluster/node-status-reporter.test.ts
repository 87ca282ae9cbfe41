import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { NodeStatusReporter } from "../../src/cluster";
import type { NodeHealth } from "../../src/nodestatus";
import { builtNode } from "./node-fixtures";
import { count, heartbeatEnv, readyCondition, storedNode, type HeartbeatEnv } from "./node-heartbeat-env";

let env: HeartbeatEnv;
let reporter: NodeStatusReporter;
let node: Node;
let health: NodeHealth;

beforeEach(async () => {
  env = await heartbeatEnv();
  node = builtNode();
  health = { ready: true, message: "" };
  reporter = new NodeStatusReporter({
    client: env.client,
    nodeName: "n1",
    buildNode: async () => structuredClone(node),
    health: () => health,
    clock: env.clock,
    log: env.log,
    // No random delay: the report period is exactly nodeStatusReportFrequency.
    random: () => 0.5,
  });
});

afterEach(async () => {
  await reporter.stop();
  await env.close();
});

/** Starts the reporter and lets it register (its first attempt waits 100 ms) and send its first status. */
async function registered(): Promise<void> {
  reporter.start();
  await env.clock.advance(100);
  await reporter.settled();
  expect(reporter.registered).toBe(true);
}

/** One status period: the clock moves 10 s and the update it triggers completes. */
async function period(): Promise<void> {
  await env.clock.advance(10_000);
  await reporter.settled();
}

describe("registration", () => {
  test("creates the Node with the node's own credentials and knows its uid", async () => {
    await registered();
    const stored = storedNode(env.api)!;
    expect(stored.metadata!.labels!["kubernetes.io/hostname"]).toBe("n1");
    expect(stored.spec!.taints).toEqual([{ key: "example.com/new", effect: "NoSchedule" }]);
    expect(stored.status!.capacity).toEqual({ cpu: "4", memory: "8Gi", pods: "110" });
    expect(readyCondition(stored)).toMatchObject({ status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" });
    expect(await reporter.nodeUid()).toBe(stored.metadata!.uid!);
    expect(env.api.requests.filter((r) => r.resource === "nodes").every((r) => r.user === "system:node:n1" && r.code < 300)).toBe(true);
  });

  test("an existing Node is adopted: default labels and extended resources reconciled, the rest kept", async () => {
    env.api.store.create("nodes", {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "n1",
        labels: { "kubernetes.io/hostname": "old-name", "team.example.com/owner": "storage" },
        annotations: { "example.com/note": "keep" },
      },
      spec: { taints: [{ key: "admin.example.com/drain", effect: "NoExecute" }], podCIDR: "10.244.1.0/24" },
      status: {
        capacity: { cpu: "2", "example.com/gpu": "2" },
        allocatable: { cpu: "2", "example.com/gpu": "2" },
        conditions: [{ type: "NetworkUnavailable", status: "False", reason: "RouteCreated" }],
      },
    });
    const uid = storedNode(env.api)!.metadata!.uid!;
    await registered();
    const stored = storedNode(env.api)!;
    expect(await reporter.nodeUid()).toBe(uid);
    expect(stored.metadata!.labels).toMatchObject({ "kubernetes.io/hostname": "n1", "team.example.com/owner": "storage", "kubernetes.io/os": "linux" });
    expect(stored.metadata!.annotations).toEqual({ "example.com/note": "keep" });
    // Taints and spec are the cluster's: NodeRestriction forbids a node to change its taints.
    expect(stored.spec).toEqual({ taints: [{ key: "admin.example.com/drain", effect: "NoExecute" }], podCIDR: "10.244.1.0/24" });
    expect(stored.status!.capacity).toEqual({ cpu: "4", memory: "8Gi", pods: "110", "example.com/gpu": "0" });
    expect(stored.status!.conditions!.map((c) => c.type)).toEqual(["NetworkUnavailable", "MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]);
  });

  test("keeps trying while the API server refuses, then registers", async () => {
    await env.api.down();
    reporter.start();
    await env.clock.advance(100);
    await reporter.settled();
    expect(reporter.registered).toBe(false);
    expect(reporter.lastError).toContain("unable to register node n1");
    await env.api.up();
    await env.clock.advance(200);
    await reporter.settled();
    expect(reporter.registered).toBe(true);
    expect(storedNode(env.api)).toBeDefined();
  });
});

describe("status updates", () => {
  test("PATCH only when the status changed, and at least every 5 minutes", async () => {
    await registered();
    const patches = count(env.api, "patch", "nodes", "status");
    const heartbeat = readyCondition(storedNode(env.api))!.lastHeartbeatTime;

    await period();
    await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches);
    expect(count(env.api, "get", "nodes")).toBeGreaterThanOrEqual(3);

    node = builtNode({ cpu: "8" });
    await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 1);
    expect(storedNode(env.api)!.status!.capacity!.cpu).toBe("8");
    const reportedAt = env.clock.now();

    // Unchanged from now on: nothing until 5 minutes after the last report, then one heartbeat.
    while (env.clock.now() + 10_000 < reportedAt + 300_000) await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 1);
    await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 2);
    const ready = readyCondition(storedNode(env.api))!;
    expect(ready.lastHeartbeatTime).not.toBe(heartbeat);
    expect(Date.parse(ready.lastHeartbeatTime!)).toBe(env.clock.now() - (env.clock.now() % 1000));
    expect(Date.parse(ready.lastTransitionTime!)).toBeLessThan(Date.parse(ready.lastHeartbeatTime!));
  });

  test("after the start, a node not ready yet is reported Ready within 100 ms of being ready, not at its next period; once", async () => {
    health = { ready: false, message: "container runtime status check may not have completed yet" };
    await registered();
    expect(readyCondition(storedNode(env.api))).toMatchObject({ status: "False" });
    const patches = () => count(env.api, "patch", "nodes", "status");
    const before = patches();
    // Not ready: the 100 ms looks send nothing.
    await env.clock.advance(1_000);
    await reporter.settled();
    expect(patches()).toBe(before);
    health = { ready: true, message: "" };
    await env.clock.advance(100);
    await reporter.settled();
    expect(readyCondition(storedNode(env.api))).toMatchObject({ status: "True", reason: "KubeletReady" });
    expect(patches()).toBe(before + 1);
    // Then the usual period: a failure later is seen at the next 10 s update, not within 100 ms.
    health = { ready: false, message: "PLEG is not healthy" };
    await env.clock.advance(5_000);
    await reporter.settled();
    expect(readyCondition(storedNode(env.api))).toMatchObject({ status: "True" });
  });

  test("Ready turns False with the health message when the agent's health checks fail, and back", async () => {
    await registered();
    health = { ready: false, message: "PLEG is not healthy: pleg was last seen active 3m0.5s ago; threshold is 3m0s" };
    await period();
    expect(readyCondition(storedNode(env.api))).toMatchObject({ status: "False", reason: "KubeletNotReady", message: health.message });
    const wentDown = readyCondition(storedNode(env.api))!.lastTransitionTime;

    health = { ready: true, message: "" };
    await period();
    const ready = readyCondition(storedNode(env.api))!;
    expect(ready).toMatchObject({ status: "True", reason: "KubeletReady" });
    expect(ready.lastTransitionTime).not.toBe(wentDown);
  });

  test("with the node's watch as its lister: no GET at rest, a GET only to retry; the period after a change moved by the random delay", async () => {
    await reporter.stop();
    // The lister as the node's informer would have it: the stored Node, a copy.
    let listerReads = 0;
    reporter = new NodeStatusReporter({
      client: env.client,
      nodeName: "n1",
      buildNode: async () => structuredClone(node),
      health: () => health,
      clock: env.clock,
      log: env.log,
      nodeLister: () => (listerReads++, structuredClone(storedNode(env.api))),
      // The smallest delay: half the report frequency earlier (calculateDelay's -0.5).
      random: () => 0,
    });
    await registered();
    const gets = count(env.api, "get", "nodes");
    const patches = count(env.api, "patch", "nodes", "status");
    for (let i = 0; i < 6; i++) await period();
    expect(count(env.api, "get", "nodes")).toBe(gets);
    expect(listerReads).toBeGreaterThanOrEqual(6);

    node = builtNode({ cpu: "8" });
    env.api.failNext({ verb: "patch", resource: "nodes", subresource: "status" }, 409);
    await period();
    // The first attempt read the lister and was refused; the retry read the Node with a GET.
    expect(count(env.api, "get", "nodes")).toBe(gets + 1);
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 2);
    const changedAt = env.clock.now();
    // Unchanged from now on: the next report 5 min - 2.5 min after the change, not 5 min.
    while (env.clock.now() + 10_000 < changedAt + 150_000) await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 2);
    await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 3);
    // A periodic report has no delay: the next one a full 5 min later.
    const reportedAt = env.clock.now();
    while (env.clock.now() + 10_000 < reportedAt + 300_000) await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 3);
    await period();
    expect(count(env.api, "patch", "nodes", "status")).toBe(patches + 4);
    expect(count(env.api, "get", "nodes")).toBe(gets + 1);
  });

  test("a 409 on the status PATCH is retried at once over a fresh GET", async () => {
    await registered();
    env.api.failNext({ verb: "patch", resource: "nodes", subresource: "status" }, 409);
    node = builtNode({ cpu: "6" });
    await period();
    expect(storedNode(env.api)!.status!.capacity!.cpu).toBe("6");
    expect(reporter.lastError).toBeUndefined();
    expect(env.warnings.some((w) => w.startsWith('error updating node status, will retry node=n1 err="409'))).toBe(true);
  });

  test("gives up after 5 attempts and tries again next period, without throwing", async () => {
    await registered();
    env.api.failNext({ verb: "get", resource: "nodes" }, 500, 5);
    node = builtNode({ cpu: "6" });
    await period();
    expect(storedNode(env.api)!.status!.capacity!.cpu).toBe("4");
    expect(reporter.lastError).toContain("500");
    await period();
    expect(storedNode(env.api)!.status!.capacity!.cpu).toBe("6");
  });
});
