import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Lease } from "kubernetes-types/coordination/v1";
import { NodeLease, startNodeHeartbeat, type NodeHeartbeat } from "../../src/cluster";
import { builtNode } from "./node-fixtures";
import { count, heartbeatEnv, storedNode, type HeartbeatEnv } from "./node-heartbeat-env";

let env: HeartbeatEnv;
let lease: NodeLease | undefined;
let heartbeat: NodeHeartbeat | undefined;

beforeEach(async () => {
  env = await heartbeatEnv();
});

afterEach(async () => {
  await lease?.stop();
  await heartbeat?.stop();
  lease = heartbeat = undefined;
  await env.close();
});

function storedLease(name = "n1"): Lease | undefined {
  return env.api.store.get("leases", "kube-node-lease", name) as Lease | undefined;
}

function startLease(o: { nodeName?: string; uid?: string } = {}): NodeLease {
  // No jitter: renewals exactly every 10 s.
  lease = new NodeLease({ client: env.client, nodeName: o.nodeName ?? "n1", nodeUid: () => o.uid, clock: env.clock, log: env.log, random: () => 0 });
  lease.start();
  return lease;
}

/** The clock moves by ms and whatever it set off finishes. */
async function advance(l: NodeLease, ms: number): Promise<void> {
  await env.clock.advance(ms);
  await l.settled();
}

describe("NodeLease", () => {
  test("creates kube-node-lease/<node> owned by the Node and renews it every 10 s", async () => {
    const l = startLease({ uid: "node-uid-1" });
    await l.settled();
    const created = storedLease()!;
    expect(created.spec).toMatchObject({ holderIdentity: "n1", leaseDurationSeconds: 40, renewTime: "2026-01-01T00:00:00.000000Z" });
    expect(created.metadata!.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "n1", uid: "node-uid-1" }]);

    await advance(l, 9_999);
    expect(count(env.api, "update", "leases")).toBe(0);
    await advance(l, 1);
    expect(storedLease()!.spec!.renewTime).toBe("2026-01-01T00:00:10.000000Z");
    await advance(l, 10_000);
    expect(storedLease()!.spec!.renewTime).toBe("2026-01-01T00:00:20.000000Z");
    // Steady state: one PUT per renewal, no GET.
    expect(count(env.api, "update", "leases")).toBe(2);
    expect(count(env.api, "get", "leases")).toBe(1);
    expect(env.api.requests.filter((r) => r.resource === "leases").every((r) => r.user === "system:node:n1")).toBe(true);
  });

  test("recovers after the API server was down, backing off 200 ms doubling to 7 s", async () => {
    const l = startLease();
    await l.settled();
    await env.api.down();
    await advance(l, 10_000);
    expect(l.lastError).toContain("will retry in 0.2s");
    for (const [ms, next] of [
      [200, "0.4s"],
      [400, "0.8s"],
      [800, "1.6s"],
      [1_600, "3.2s"],
      [3_200, "6.4s"],
      [6_400, "7s"],
      [7_000, "7s"],
    ] as const) {
      await advance(l, ms);
      expect(l.lastError).toContain(`will retry in ${next}`);
    }
    await env.api.up();
    const before = env.clock.now();
    await advance(l, 7_000);
    expect(l.lastError).toBeUndefined();
    expect(Date.parse(storedLease()!.spec!.renewTime!)).toBe(before + 7_000);
    // Back to the normal interval.
    await advance(l, 10_000);
    expect(Date.parse(storedLease()!.spec!.renewTime!)).toBe(before + 17_000);
  });

  test("a 409 on update falls back to GET the lease and renews it in the same round", async () => {
    const l = startLease();
    await l.settled();
    env.api.failNext({ verb: "update", resource: "leases" }, 409);
    await advance(l, 10_000);
    expect(storedLease()!.spec!.renewTime).toBe("2026-01-01T00:00:10.000000Z");
    expect(count(env.api, "get", "leases")).toBe(2);
    expect(l.lastError).toBeUndefined();
  });

  test("someone else's newer write (stale resourceVersion) is a conflict the lease gets over", async () => {
    const l = startLease();
    await l.settled();
    const other = storedLease()!;
    env.api.store.update("leases", { ...other, spec: { ...other.spec, holderIdentity: "n1", renewTime: "2026-01-01T00:00:05.000000Z" } });
    await advance(l, 10_000);
    expect(storedLease()!.spec!.renewTime).toBe("2026-01-01T00:00:10.000000Z");
    expect(
      env.warnings.some((w) => w.startsWith('failed to update lease using the latest lease, falling back to ensure lease lease=kube-node-lease/n1 err="409')),
    ).toBe(true);
  });

  test("403 for another node's lease is logged and retried, never thrown", async () => {
    const l = startLease({ nodeName: "n2" });
    await l.settled();
    expect(storedLease("n2")).toBeUndefined();
    expect(l.lastError).toContain("403");
    expect(env.warnings.some((w) => w.includes("can only access node lease with the same name as the requesting node"))).toBe(true);
    await advance(l, 200);
    expect(count(env.api, "get", "leases")).toBe(2);
  });
});

describe("startNodeHeartbeat", () => {
  test("registers the Node, renews the lease, and gives the lease its owner once the Node's uid is known", async () => {
    heartbeat = startNodeHeartbeat({
      client: env.client,
      nodeName: "n1",
      buildNode: async () => builtNode(),
      health: () => ({ ready: true, message: "" }),
      clock: env.clock,
      log: env.log,
      random: () => 0,
    });
    await heartbeat.lease.settled();
    await env.clock.advance(100);
    await heartbeat.status.settled();
    const uid = await heartbeat.nodeUid();
    expect(uid).toBe(storedNode(env.api)!.metadata!.uid!);

    await env.clock.advance(10_000);
    await Promise.all([heartbeat.lease.settled(), heartbeat.status.settled()]);
    expect(storedLease()!.metadata!.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "n1", uid }]);
    expect(storedLease()!.spec!.renewTime).toBe("2026-01-01T00:00:10.000000Z");

    await heartbeat.stop();
    const requests = env.api.requests.length;
    await env.clock.advance(60_000);
    expect(env.api.requests.length).toBe(requests);
  });
});

test("each renewal period is 10 s plus the lease controller's jitter of up to 4 %", async () => {
  lease = new NodeLease({ client: env.client, nodeName: "n1", nodeUid: () => undefined, clock: env.clock, log: env.log, random: () => 0.99 });
  lease.start();
  await lease.settled();
  const renewals = () => count(env.api, "update", "leases");
  await advance(lease, 10_000);
  expect(renewals()).toBe(0);
  // 10 s × (1 + 0.04 × 0.99) = 10.396 s.
  await advance(lease, 396);
  expect(renewals()).toBe(1);
  // Sliding: the next period counts from the end of this renewal.
  await advance(lease, 10_395);
  expect(renewals()).toBe(1);
  await advance(lease, 1);
  expect(renewals()).toBe(2);
});
