// The node shutdown manager with a fake clock and fake pods: the grace periods migrated and grouped by
// priority as the kubelet's nodeshutdown_manager_linux.go does, groups stopped lowest priority first
// each within its budget, each pod within min(its own grace period, the budget), the statuses it
// leaves, admission refused meanwhile, and the logind watch over a fake ShutdownSignal.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import {
  groupByPriority,
  migrateGracePeriods,
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
  NODE_SHUTDOWN_REASON,
  ShutdownManager,
  sortGroups,
  watchShutdownSignal,
} from "../../src/nodeshutdown";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { FakeShutdownSignal, FakeShutdownTarget } from "../fakes/shutdown";
import { linesLog } from "../fakes/recording-log";

const CRITICAL = 2_000_000_000;

function pod(name: string, o: { priority?: number; grace?: number } = {}): Pod {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      containers: [{ name: "c", image: "busybox" }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.grace !== undefined ? { terminationGracePeriodSeconds: o.grace } : {}),
    },
  };
}

function setup(pods: Pod[], periods = migrateGracePeriods(10_000, 4_000)) {
  const clock = new FakeClock();
  const target = new FakeShutdownTarget(pods);
  const { log, lines } = linesLog();
  let synced = 0;
  const manager = new ShutdownManager({ periods, target, clock, log, onShuttingDown: () => synced++ });
  return { clock, target, manager, lines, synced: () => synced };
}

describe("grace periods", () => {
  test("shutdownGracePeriod 10s with 4s for critical pods: priority 0 gets 6s, 2000000000 gets 4s; off at 0 or when critical > whole", () => {
    expect(migrateGracePeriods(10_000, 4_000)).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 6 },
      { priority: CRITICAL, shutdownGracePeriodSeconds: 4 },
    ]);
    expect(migrateGracePeriods(30_000, 0)).toEqual([
      { priority: 0, shutdownGracePeriodSeconds: 30 },
      { priority: CRITICAL, shutdownGracePeriodSeconds: 0 },
    ]);
    expect(migrateGracePeriods(0, 0)).toEqual([]);
    expect(migrateGracePeriods(5_000, 6_000)).toEqual([]);
  });

  test("by priority: the highest group at or below the pod's priority; below all → the lowest, above all → the highest", () => {
    const groups = sortGroups([
      { priority: 100_000, shutdownGracePeriodSeconds: 20 },
      { priority: 10, shutdownGracePeriodSeconds: 5 },
      { priority: CRITICAL, shutdownGracePeriodSeconds: 3 },
    ]);
    const pods = [
      pod("neg", { priority: -5 }),
      pod("none"),
      pod("ten", { priority: 10 }),
      pod("mid", { priority: 99_999 }),
      pod("edge", { priority: 100_000 }),
      pod("crit", { priority: CRITICAL }),
      pod("top", { priority: CRITICAL + 1000 }),
    ];
    const out = groupByPriority(groups, pods).map((g) => [g.priority, g.pods.map((p) => p.metadata!.name)]);
    expect(out).toEqual([
      [10, ["neg", "none", "ten", "mid"]],
      [100_000, ["edge"]],
      [CRITICAL, ["crit", "top"]],
    ]);
  });

  test("a kubeadm static pod (system-node-critical by name, no priority) goes with the critical group", () => {
    const kubeadm = pod("etcd");
    kubeadm.spec!.priorityClassName = "system-node-critical";
    const out = groupByPriority(migrateGracePeriods(30_000, 10_000), [kubeadm, pod("web")]).map((g) => [g.priority, g.pods.map((p) => p.metadata!.name)]);
    expect(out).toEqual([
      [0, ["web"]],
      [CRITICAL, ["etcd"]],
    ]);
  });
});

describe("a shutdown", () => {
  test("records Normal Shutdown on the Node when it starts and when it is called off", async () => {
    const events: string[] = [];
    const manager = new ShutdownManager({
      periods: migrateGracePeriods(10_000, 4_000),
      target: new FakeShutdownTarget([]),
      clock: new FakeClock(),
      log: linesLog().log,
      events: (type, reason, message) => events.push(`${type} ${reason}: ${message}`),
    });
    await manager.shutdown();
    manager.cancel();
    expect(events).toEqual(["Normal Shutdown: Shutdown manager detected shutdown event", "Normal Shutdown: Shutdown manager detected shutdown cancellation"]);
  });

  test("stops the normal pods first within min(own grace, 6s), then the critical ones within 4s, each Failed with the kubelet's reason and message", async () => {
    const t = setup([pod("crit", { priority: CRITICAL, grace: 30 }), pod("a", { grace: 30 }), pod("b", { grace: 2 }), pod("nograce")]);
    const done = t.manager.shutdown();
    await flushMicrotasks();
    expect(t.synced()).toBe(1);
    expect(t.target.stopped).toEqual([
      { name: "a", reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, gracePeriodSeconds: 6 },
      { name: "b", reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, gracePeriodSeconds: 2 },
      // No terminationGracePeriodSeconds: the kubelet's default 30 s, capped by the budget.
      { name: "nograce", reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE, gracePeriodSeconds: 6 },
    ]);
    t.target.finish("a");
    t.target.finish("b");
    await flushMicrotasks();
    // The critical pod waits while one normal pod still terminates.
    expect(t.target.stopped.map((s) => s.name)).not.toContain("crit");
    t.target.finish("nograce");
    await flushMicrotasks();
    expect(t.target.stopped.at(-1)).toEqual({
      name: "crit",
      reason: "Terminated",
      message: "Pod was terminated in response to imminent node shutdown.",
      gracePeriodSeconds: 4,
    });
    t.target.finish("crit");
    await done;
    expect(t.clock.now()).toBe(new FakeClock().now());
  });

  test("a group that overruns its budget is left behind when the budget has passed on the clock; the shutdown ends after the last budget", async () => {
    const t = setup([pod("slow", { grace: 30 }), pod("crit", { priority: CRITICAL, grace: 30 })]);
    let finished = false;
    const done = t.manager.shutdown().then(() => (finished = true));
    await flushMicrotasks();
    expect(t.target.stopping()).toEqual(["slow"]);
    await t.clock.advance(5_999);
    expect(t.target.stopping()).toEqual(["slow"]);
    await t.clock.advance(1);
    expect(t.target.stopping()).toEqual(["slow", "crit"]);
    expect(t.lines).toContain("warn shutdown: pods of a priority group still stopping after its grace period; going on priority=0 gracePeriod=6s");
    await t.clock.advance(3_999);
    expect(finished).toBe(false);
    await t.clock.advance(1);
    await done;
    expect(finished).toBe(true);
  });

  test("empty groups are skipped without waiting; no pods at all ends at once", async () => {
    const t = setup([pod("crit", { priority: CRITICAL })]);
    const done = t.manager.shutdown();
    await flushMicrotasks();
    expect(t.target.stopping()).toEqual(["crit"]);
    t.target.finish("crit");
    await done;
    const empty = setup([]);
    await empty.manager.shutdown();
    expect(empty.target.stopped).toEqual([]);
  });

  test("new pods are refused NodeShutdown meanwhile, and the node says it is shutting down; a cancellation admits again", async () => {
    const t = setup([pod("a")]);
    const attrs = { pod: pod("new"), otherPods: [] };
    expect(t.manager.admit(attrs)).toEqual({ admit: true });
    expect(t.manager.shutdownStatus()).toBeUndefined();
    void t.manager.shutdown();
    expect(t.manager.admit(attrs)).toEqual({ admit: false, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE });
    expect(NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE).toBe("Pod was rejected as the node is shutting down.");
    expect(t.manager.shutdownStatus()).toBe("node is shutting down");
    expect(t.lines).toContain("warn Shutdown: Shutdown manager detected shutdown event");
    t.manager.cancel();
    expect(t.manager.admit(attrs)).toEqual({ admit: true });
    expect(t.manager.shutdownStatus()).toBeUndefined();
    expect(t.lines).toContain("warn Shutdown: Shutdown manager detected shutdown cancellation");
  });

  test("a second shutdown while one runs joins it: each pod is stopped once", async () => {
    const t = setup([pod("a")]);
    const first = t.manager.shutdown();
    const second = t.manager.shutdown();
    expect(second).toBe(first);
    await flushMicrotasks();
    t.target.finish("a");
    await first;
    expect(t.target.stopped.map((s) => s.name)).toEqual(["a"]);
  });
});

describe("the logind watch", () => {
  test("no system bus: said once, no lock taken, nothing watched", async () => {
    const t = setup([pod("a")]);
    const signal = new FakeShutdownSignal();
    signal.unavailableReason = "no system bus at /run/dbus/system_bus_socket";
    const { log, lines } = linesLog();
    await watchShutdownSignal(t.manager, signal, new AbortController().signal, log);
    expect(lines).toEqual([
      'info graceful node shutdown via logind is unavailable; SIGTERM with --shutdown-pods stops the pods gracefully instead reason="no system bus at /run/dbus/system_bus_socket"',
    ]);
    expect(signal.calls).toEqual([]);
    expect(signal.isWatched).toBe(false);
  });

  test("InhibitDelayMaxSec shorter than the shutdown is raised, then the lock taken; PrepareForShutdown(true) stops the pods, then lets go of the lock", async () => {
    const t = setup([pod("a", { grace: 30 })]);
    const signal = new FakeShutdownSignal(5);
    const ac = new AbortController();
    const watching = watchShutdownSignal(t.manager, signal, ac.signal, linesLog().log);
    await flushMicrotasks();
    expect(signal.calls).toEqual(["override 10", "inhibit"]);
    expect(signal.locked).toBe(true);
    signal.prepareForShutdown(true);
    await flushMicrotasks();
    expect(t.target.stopping()).toEqual(["a"]);
    // The lock holds the host's shutdown back until the pods are handled.
    expect(signal.locked).toBe(true);
    t.target.finish("a");
    await flushMicrotasks();
    expect(signal.locked).toBe(false);
    expect(signal.calls.at(-1)).toBe("release");
    ac.abort();
    await watching;
  });

  test("PrepareForShutdown(false) calls the shutdown off: Ready and admitting again, the lock taken again", async () => {
    const t = setup([]);
    const signal = new FakeShutdownSignal(60);
    const ac = new AbortController();
    const watching = watchShutdownSignal(t.manager, signal, ac.signal, linesLog().log);
    await flushMicrotasks();
    expect(signal.calls).toEqual(["inhibit"]);
    signal.prepareForShutdown(true);
    await flushMicrotasks();
    expect(signal.calls).toEqual(["inhibit", "release"]);
    expect(t.manager.shutdownStatus()).toBe("node is shutting down");
    signal.prepareForShutdown(false);
    await flushMicrotasks();
    expect(t.manager.shutdownStatus()).toBeUndefined();
    expect(signal.calls).toEqual(["inhibit", "release", "inhibit"]);
    ac.abort();
    await watching;
  });

  test("logind not taking the longer delay: the kubelet's error, and no lock", async () => {
    const t = setup([]);
    const signal = new FakeShutdownSignal(5);
    signal.acceptOverride = false;
    const { log, lines } = linesLog();
    await watchShutdownSignal(t.manager, signal, new AbortController().signal, log);
    expect(signal.calls).toEqual(["override 10"]);
    expect(lines).toContain(
      'warn unable to watch the node for shutdown events err="node shutdown manager was unable to update logind InhibitDelayMaxSec to 10s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (5s) is less than requested ShutdownGracePeriod"',
    );
  });
});
