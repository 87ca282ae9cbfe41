import { afterEach, describe, expect, test } from "bun:test";
import type { Node, NodeCondition } from "kubernetes-types/core/v1";
import type { Status } from "kubernetes-types/meta/v1";
import { AgentMetrics } from "../../src/server/metrics";
import { NODE_DEADLINE_MS, NodeCache, type NodeAnswer } from "../../src/server/node-cache";
import { createHandler, startAgentServer, type AgentServer } from "../../src/server/server";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { FakeAgentView } from "../fakes/agent-view";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

function readyNode(name = "node-1", transition = "2025-12-31T00:00:00Z"): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    status: {
      capacity: { pods: "110" },
      conditions: [
        {
          type: "MemoryPressure",
          status: "False",
          reason: "KubeletHasSufficientMemory",
          message: "",
          lastHeartbeatTime: transition,
          lastTransitionTime: transition,
        },
        {
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          message: "kubelet is posting ready status",
          lastHeartbeatTime: transition,
          lastTransitionTime: transition,
        },
      ],
    },
  };
}

/** A build the test resolves by hand: pending until resolve(), like a CRI call to a frozen runtime. */
class Builds {
  calls = 0;
  private pending: ((n: Node) => void)[] = [];
  private failures: ((e: Error) => void)[] = [];
  build = (): Promise<Node> => {
    this.calls++;
    return new Promise<Node>((resolve, reject) => {
      this.pending.push(resolve);
      this.failures.push(reject);
    });
  };
  resolve(n: Node): void {
    for (const r of this.pending.splice(0)) r(n);
    this.failures = [];
  }
  fail(e: Error): void {
    for (const r of this.failures.splice(0)) r(e);
    this.pending = [];
  }
}

/** Starts get() and advances the fake clock until it settles (or `ms` have passed). */
async function getAfter(cache: NodeCache, clock: FakeClock, ms: number): Promise<NodeAnswer | "pending"> {
  let out: NodeAnswer | "pending" = "pending";
  void cache.get().then((a) => (out = a));
  await flushMicrotasks();
  await clock.advance(ms);
  return out;
}

function ready(n: Node): NodeCondition {
  return n.status!.conditions!.find((c) => c.type === "Ready")!;
}

describe("NodeCache", () => {
  test("a build done in time is answered fresh and remembered", async () => {
    const clock = new FakeClock();
    const builds = new Builds();
    const cache = new NodeCache({ build: builds.build, clock, deadlineMs: 5_000 });
    const p = cache.get();
    builds.resolve(readyNode());
    expect(await p).toEqual({ kind: "fresh", node: readyNode() });
    expect(clock.pending()).toBe(0);
  });

  test("no node built yet and a runtime that never answers: 'none' at the deadline, not before", async () => {
    const clock = new FakeClock();
    const builds = new Builds();
    const cache = new NodeCache({ build: builds.build, clock, deadlineMs: 5_000 });
    let out: NodeAnswer | undefined;
    void cache.get().then((a) => (out = a));
    await flushMicrotasks();
    await clock.advance(4_999);
    expect(out).toBeUndefined();
    await clock.advance(1);
    expect(out).toMatchObject({ kind: "none", retryAfterSeconds: 5 });
    expect((out as { message: string }).message).toContain("could not be computed within 5s");
  });

  test("after a node was built, a frozen runtime gets the last node, Ready=False with the reason", async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
    const builds = new Builds();
    const cache = new NodeCache({ build: builds.build, clock, deadlineMs: 5_000 });
    const first = cache.get();
    builds.resolve(readyNode());
    await first;
    await clock.advance(60_000);
    const answer = await getAfter(cache, clock, 5_000);
    expect(answer).not.toBe("pending");
    const stale = answer as Extract<NodeAnswer, { kind: "stale" }>;
    expect(stale.kind).toBe("stale");
    expect(stale.warning).toContain("did not answer within 5s");
    expect(stale.warning).toContain("2026-01-01T00:00:00Z");
    expect(stale.node.status?.capacity).toEqual({ pods: "110" });
    expect(ready(stale.node)).toEqual({
      type: "Ready",
      status: "False",
      reason: "KubeletNotReady",
      message: "container runtime is down: no answer within 5s; the rest of this node is as computed at 2026-01-01T00:00:00Z",
      lastHeartbeatTime: "2026-01-01T00:01:05Z",
      lastTransitionTime: "2026-01-01T00:01:05Z",
    });
    // The other conditions and their order are kept.
    expect(stale.node.status!.conditions!.map((c) => c.type)).toEqual(["MemoryPressure", "Ready"]);
  });

  test("one build at a time: requests during a freeze share it, and ones past its deadline answer at once", async () => {
    const clock = new FakeClock();
    const builds = new Builds();
    const cache = new NodeCache({ build: builds.build, clock, deadlineMs: 5_000 });
    const first = cache.get();
    builds.resolve(readyNode());
    await first;
    expect(await getAfter(cache, clock, 5_000)).toMatchObject({ kind: "stale" });
    // The build of that request still hangs: a later request joins it and, being past the deadline, does not wait.
    const again = await getAfter(cache, clock, 0);
    expect(again).toMatchObject({ kind: "stale" });
    expect(builds.calls).toBe(2);
    // The transition time stays the first stale answer's during one freeze.
    await clock.advance(30_000);
    const later = (await getAfter(cache, clock, 0)) as Extract<NodeAnswer, { kind: "stale" }>;
    expect(ready(later.node).lastTransitionTime).toBe(ready((again as Extract<NodeAnswer, { kind: "stale" }>).node).lastTransitionTime);
    expect(ready(later.node).lastHeartbeatTime).not.toBe(ready(later.node).lastTransitionTime);
    // When the runtime answers, the late build is remembered and the next request starts a new one.
    builds.resolve(readyNode("node-2"));
    await flushMicrotasks();
    const next = cache.get();
    expect(builds.calls).toBe(3);
    builds.resolve(readyNode("node-3"));
    expect(await next).toEqual({ kind: "fresh", node: readyNode("node-3") });
  });

  test("a build that throws is an error for its callers, and one that throws late is not unhandled", async () => {
    const clock = new FakeClock();
    const builds = new Builds();
    const cache = new NodeCache({ build: builds.build, clock, deadlineMs: 5_000 });
    const p = cache.get();
    builds.fail(new Error("boom"));
    await expect(p).rejects.toThrow("boom");
    expect(await getAfter(cache, clock, 5_000)).toMatchObject({ kind: "none" });
    builds.fail(new Error("late boom"));
    await flushMicrotasks();
    // A new build starts on the next request.
    void cache.get();
    expect(builds.calls).toBe(3);
  });

  test("the default deadline is a few seconds, under Bun's 10 s idle timeout", () => {
    expect(NODE_DEADLINE_MS).toBeGreaterThanOrEqual(2_000);
    expect(NODE_DEADLINE_MS).toBeLessThan(10_000);
  });
});

describe("GET /node during a runtime freeze (through the handler)", () => {
  test("503 with Retry-After before any node was built; the last node with a Warning after", async () => {
    const clock = new FakeClock();
    const view = new FakeAgentView();
    view.nodeHangs = true;
    const handle = createHandler({ view, metrics: new AgentMetrics(), log: silent, clock, nodeDeadlineMs: 3_000, token: "t" });
    const req = () => new Request("http://agent/node", { headers: { Authorization: "Bearer t" } });

    const got: { res?: Response } = {};
    /** What the handler answered so far (read through a call: the callback sets it). */
    const answered = (): Response | undefined => got.res;
    void handle(req()).then((r) => (got.res = r));
    await flushMicrotasks();
    await clock.advance(3_000);
    expect(answered()?.status).toBe(503);
    expect(answered()?.headers.get("retry-after")).toBe("3");
    expect(await answered()!.json()).toMatchObject({ kind: "Status", reason: "ServiceUnavailable", code: 503 });

    view.release();
    await flushMicrotasks();
    const ok = await handle(req());
    expect(ok.status).toBe(200);
    expect(ok.headers.get("warning")).toBeNull();

    view.nodeHangs = true;
    got.res = undefined;
    void handle(req()).then((r) => (got.res = r));
    await flushMicrotasks();
    await clock.advance(3_000);
    expect(answered()?.status).toBe(200);
    expect(answered()?.headers.get("warning")).toStartWith('299 - "the container runtime did not answer within 3s');
    const node = (await answered()!.json()) as Node;
    expect(node.metadata?.name).toBe("node-1");
    expect(ready(node)).toMatchObject({ status: "False", reason: "KubeletNotReady" });
    view.release();
  });
});

describe("no handler waits on a frozen runtime", () => {
  let server: AgentServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  test("/pods, /pods/<ns>/<name>, /metrics and /healthz answer while node() hangs; /node within its deadline", async () => {
    const view = new FakeAgentView();
    view.nodeHangs = true;
    server = await startAgentServer({ address: "127.0.0.1", port: 0, view, metrics: new AgentMetrics(), log: silent, nodeDeadlineMs: 200, token: "t" });
    const headers = { Authorization: "Bearer t" };
    for (const route of ["/pods", "/pods/default/web", "/metrics", "/healthz"]) {
      const res = await fetch(`${server.url}${route}`, { headers, signal: AbortSignal.timeout(2_000) });
      expect({ route, status: res.status }).toEqual({ route, status: 200 });
    }
    const node = await fetch(`${server.url}/node`, { headers, signal: AbortSignal.timeout(2_000) });
    expect(node.status).toBe(503);
    expect(((await node.json()) as Status).message).toContain("could not be computed within 200ms");
    view.release();
  });
});
