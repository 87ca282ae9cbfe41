// The scheduling queue with a fake clock: backoff (1 s doubling to 10 s), the 5-minute flush of
// unschedulable pods, moves on cluster events through the rejecting plugins' hints, scheduling
// gates, events seen while a pod was in flight, and error backoff.
import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { Action, EVENT_NODE_ADD } from "../../src/scheduler/framework/events";
import type { QueuedPodInfo } from "../../src/scheduler/framework/interface";
import { Code, Status } from "../../src/scheduler/framework/status";
import { PodInfo } from "../../src/scheduler/model/pod-info";
import { PrioritySort } from "../../src/scheduler/plugins/priority-sort";
import { SchedulingGates } from "../../src/scheduler/plugins/scheduling-gates";
import type { QueueHint } from "../../src/scheduler/queue/queueing-hints";
import { SchedulingQueue } from "../../src/scheduler/queue/scheduling-queue";
import { FakeClock } from "../../src/util/clock";
import { node, pod } from "./fixtures";

/** Plugin "Fit" wants NodeAdd unless the node is labelled full=true; "Gates" is the real SchedulingGates. */
function makeQueue(o: { popFromBackoffQ?: boolean; start?: number } = {}) {
  const clock = new FakeClock(o.start ?? 1_000_000_500);
  const gates = new SchedulingGates();
  const hints: QueueHint[] = [
    {
      plugin: "Fit",
      event: { resource: "Node", actionType: Action.Add },
      hint: (_pod, _old, n) => ((n as Node).metadata?.labels?.full === "true" ? "QueueSkip" : "Queue"),
    },
    ...gates.eventsToRegister().map((e) => ({ plugin: gates.name, ...e })),
  ];
  const sort = new PrioritySort();
  const q = new SchedulingQueue({
    clock,
    less: (a, b) => sort.less(a, b),
    popFromBackoffQ: o.popFromBackoffQ ?? false,
    preEnqueue: (pi) => gates.preEnqueue(pi.pod)?.withPlugin(gates.name),
    hints: new Map([["default-scheduler", hints]]),
  });
  return { q, clock };
}

/** Pops the pod and gives it back as rejected by the plugins (empty: an error). */
function fail(q: SchedulingQueue, p: QueuedPodInfo, plugins: string[]): void {
  for (const pl of plugins) p.unschedulablePlugins.add(pl);
  q.addUnschedulableIfNotPresent(p);
}

const where = (q: SchedulingQueue, uid: string) => q.get(uid)?.queue;

describe("backoff", () => {
  test("1 s doubling to 10 s", () => {
    const { q } = makeQueue();
    expect([1, 2, 3, 4, 5, 6, 20].map((n) => q.backoffDuration(n))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(q.backoffDuration(0)).toBe(0);
  });

  test("a requeued pod waits out its backoff in backoffQ, then the flush moves it to activeQ", async () => {
    const { q, clock } = makeQueue();
    const p = pod("p");
    q.add(p);
    let got = q.tryPop()!;
    expect(got.attempts).toBe(1);
    // Rejected by Fit, and a node arrived while it was in flight: straight to backoffQ (1 s).
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    fail(q, got, ["Fit"]);
    expect(where(q, got.podInfo.uid)).toBe("Backoff");
    expect(q.backoffTime(got) - got.timestamp).toBe(1000);
    expect(q.tryPop()).toBeUndefined();
    // Still backing off at the expiry itself (isPodBackingoff: the expiry is not before now).
    await clock.advance(1000);
    q.flushBackoffQCompleted();
    expect(where(q, got.podInfo.uid)).toBe("Backoff");
    await clock.advance(1);
    q.flushBackoffQCompleted();
    expect(where(q, got.podInfo.uid)).toBe("Active");
    got = q.tryPop()!;
    expect(got.attempts).toBe(2);
    // Second failure: 2 s.
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n2"));
    fail(q, got, ["Fit"]);
    expect(q.backoffTime(got) - got.timestamp).toBe(2000);
  });

  test("the flush timer runs every second once run() started", async () => {
    const { q, clock } = makeQueue();
    q.run();
    q.add(pod("p"));
    const got = q.tryPop()!;
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    fail(q, got, ["Fit"]);
    await clock.advance(2000);
    expect(where(q, got.podInfo.uid)).toBe("Active");
    q.close();
  });

  test("with PopFromBackoffQ an idle scheduler takes a backing-off pod, and expiries align to whole seconds", async () => {
    const { q } = makeQueue({ popFromBackoffQ: true, start: 1_000_000_400 });
    q.add(pod("p"));
    const got = q.tryPop()!;
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    fail(q, got, ["Fit"]);
    // 1_000_000_400 + 1000 truncated to the second.
    expect(q.backoffTime(got)).toBe(1_000_001_000);
    expect(q.tryPop()?.podInfo.uid).toBe(got.podInfo.uid);
  });
});

describe("unschedulable pods", () => {
  test("wait for an event their rejecting plugin's hint accepts", () => {
    const { q } = makeQueue();
    q.add(pod("p"));
    const got = q.tryPop()!;
    fail(q, got, ["Fit"]);
    expect(where(q, got.podInfo.uid)).toBe("Unschedulable");
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n", { labels: { full: "true" } }));
    expect(where(q, got.podInfo.uid)).toBe("Unschedulable");
    q.moveAllToActiveOrBackoffQueue({ resource: "Node", actionType: Action.UpdateNodeLabel }, node("n"), node("n"));
    expect(where(q, got.podInfo.uid)).toBe("Unschedulable");
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("m"));
    // Its backoff (1 s) is not over: backoffQ.
    expect(where(q, got.podInfo.uid)).toBe("Backoff");
  });

  test("a pod rejected by a plugin that did not register the event stays", () => {
    const { q } = makeQueue();
    q.add(pod("p"));
    const got = q.tryPop()!;
    fail(q, got, ["NodeAffinity"]);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("m"));
    expect(where(q, got.podInfo.uid)).toBe("Unschedulable");
  });

  test("are flushed after 5 minutes (checked every 30 s)", async () => {
    const { q, clock } = makeQueue();
    q.run();
    q.add(pod("p"));
    const got = q.tryPop()!;
    fail(q, got, ["NodeAffinity"]);
    await clock.advance(4 * 60_000 + 59_000);
    expect(where(q, got.podInfo.uid)).toBe("Unschedulable");
    await clock.advance(31_000);
    expect(where(q, got.podInfo.uid)).toBe("Active");
    q.close();
  });

  test("an event seen while the pod was in flight is replayed when it comes back", () => {
    const { q } = makeQueue();
    q.add(pod("a"));
    q.add(pod("b"));
    const a = q.tryPop()!;
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    const b = q.tryPop()!;
    fail(q, a, ["Fit"]);
    fail(q, b, ["Fit"]);
    // a was in flight when the node came; b was popped after it.
    expect(where(q, a.podInfo.uid)).toBe("Backoff");
    expect(where(q, b.podInfo.uid)).toBe("Unschedulable");
  });

  test("a Pending plugin's Queue skips the backoff", () => {
    const { q } = makeQueue();
    q.add(pod("p"));
    const got = q.tryPop()!;
    got.pendingPlugins.add("Fit");
    q.addUnschedulableIfNotPresent(got);
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    expect(where(q, got.podInfo.uid)).toBe("Active");
  });
});

describe("errors and gates", () => {
  test("a pod that failed with an error (no rejecting plugin) backs off in the error queue, which idle pops skip", async () => {
    const { q, clock } = makeQueue({ popFromBackoffQ: true });
    q.add(pod("p"));
    const got = q.tryPop()!;
    fail(q, got, []);
    expect(got.consecutiveErrorsCount).toBe(1);
    expect(where(q, got.podInfo.uid)).toBe("Backoff");
    expect(q.tryPop()).toBeUndefined();
    await clock.advance(2000);
    q.flushBackoffQCompleted();
    expect(q.tryPop()?.podInfo.uid).toBe(got.podInfo.uid);
  });

  test("a gated pod is not attempted until its gates are removed", () => {
    const { q } = makeQueue();
    const gated = pod("g", { schedulingGates: ["example.com/wait"] });
    q.add(gated);
    expect(q.tryPop()).toBeUndefined();
    const entry = q.get(gated.metadata!.uid!)!;
    expect([entry.queue, entry.pInfo.gatingPlugin, entry.pInfo.attempts]).toEqual(["Unschedulable", "SchedulingGates", 0]);
    // Another event does not move it.
    q.moveAllToActiveOrBackoffQueue(EVENT_NODE_ADD, undefined, node("n"));
    expect(q.tryPop()).toBeUndefined();
    const ungated = { ...gated, spec: { ...gated.spec!, schedulingGates: [] } };
    q.update(gated, ungated);
    expect(q.tryPop()?.podInfo.uid).toBe(gated.metadata!.uid!);
  });

  test("activeQ pops by priority, then arrival", () => {
    const { q } = makeQueue();
    q.add(pod("low1"));
    q.add(pod("high", { priority: 100 }));
    q.add(pod("low2"));
    expect([q.tryPop(), q.tryPop(), q.tryPop()].map((p) => p?.podInfo.name)).toEqual(["high", "low1", "low2"]);
  });

  test("pop waits for a pod, and close releases it", async () => {
    const { q } = makeQueue();
    const waiting = q.pop();
    q.add(pod("p"));
    expect((await waiting)?.podInfo.name).toBe("p");
    const nothing = q.pop();
    q.close();
    expect(await nothing).toBeUndefined();
  });
});

test("a status from a gate names its plugin", () => {
  const s = new SchedulingGates().preEnqueue(new PodInfo(pod("g", { schedulingGates: ["x"] })).pod)!.withPlugin("SchedulingGates");
  expect(s).toBeInstanceOf(Status);
  expect([s.code, s.plugin]).toEqual([Code.UnschedulableAndUnresolvable, "SchedulingGates"]);
});
