// The allocation manager's decisions (allocation-manager.ts): what a pod is admitted and synced with,
// a resize allocated (PodResizeInProgress, ResizeStarted) or left pending (PodResizePending Deferred or
// Infeasible, with the admission's message), a deferred one tried again when room is made, a reverted
// one forgotten, and the allocation kept across a restart.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import type { PodAdmitResult } from "../../src/admission/types";
import { AllocationManager, RESIZE_FIRST_RETRY_MS } from "../../src/agent/allocation-manager";
import { PodResourceState } from "../../src/agent/resource-state";
import { ResizeConditions } from "../../src/status/resize-status";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRecorder } from "../fakes/events";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function pod(uid: string, cpu: string, generation = 1): Pod {
  return {
    metadata: { name: `p-${uid}`, namespace: "default", uid, generation },
    spec: { containers: [{ name: "c", image: "busybox", resources: { requests: { cpu }, limits: { cpu } } }] },
  };
}

/** A node of 1000m: a pod fits while the others' requests and its own stay within it. */
function setup(file?: string) {
  const clock = new FakeClock();
  const events = new FakeRecorder();
  const conditions = new ResizeConditions(() => new Date(clock.now()).toISOString());
  const synced: string[] = [];
  const others = new Map<string, Pod>();
  let infeasible = false;
  const admitResize = (p: Pod): PodAdmitResult => {
    if (infeasible) return { admit: false, reason: "Infeasible", message: "no node could" };
    const milli = (x: Pod) => Number.parseInt(String(x.spec!.containers[0]!.resources!.requests!.cpu), 10);
    const used = [...others.values()].filter((o) => o.metadata!.uid !== p.metadata!.uid).reduce((s, o) => s + milli(m.fromAllocation(o)), 0);
    if (used + milli(p) > 1000)
      return { admit: false, reason: "OutOfcpu", message: `Node didn't have enough resource: cpu, requested: ${milli(p)}, used: ${used}, capacity: 1000` };
    return { admit: true };
  };
  const m = new AllocationManager({
    allocated: new PodResourceState(file),
    conditions,
    admitResize,
    syncPod: (p) => synced.push(p.metadata!.uid!),
    events,
    clock,
    log: createLogger("text", -999),
  });
  const add = (p: Pod) => {
    others.set(p.metadata!.uid!, p);
    return m.addPod(p, () => ({ admit: true }));
  };
  return { m, clock, events, conditions, synced, add, others, setInfeasible: (v: boolean) => (infeasible = v) };
}

describe("AllocationManager", () => {
  test("a resize that fits is allocated: the worker's pod takes it, PodResizeInProgress, ResizeStarted, a sync", () => {
    const { m, events, conditions, synced, add } = setup();
    add(pod("a", "200m"));
    const resized = pod("a", "400m", 2);
    m.updatePod(resized);
    expect(m.fromAllocation(resized).spec!.containers[0]!.resources!.requests!.cpu).toBe("400m");
    expect(conditions.list("a")).toMatchObject([{ type: "PodResizeInProgress", status: "True", observedGeneration: 2 }]);
    expect(events.lines()).toEqual([
      'Normal ResizeStarted: Pod resize started: {"containers":[{"name":"c","resources":{"requests":{"cpu":"400m"},"limits":{"cpu":"400m"}}}],"generation":2}',
    ]);
    expect(synced).toEqual(["a"]);
    expect(m.hasPendingResizes()).toBe(false);
  });

  test("one that does not fit is Deferred with the fit message, tried again when another pod goes", () => {
    const { m, events, conditions, synced, add, others } = setup();
    add(pod("a", "200m"));
    add(pod("b", "600m"));
    const big = pod("a", "500m", 2);
    m.updatePod(big);
    // Still the allocated 200m for the worker.
    expect(m.fromAllocation(big).spec!.containers[0]!.resources!.requests!.cpu).toBe("200m");
    expect(conditions.list("a")).toMatchObject([
      {
        type: "PodResizePending",
        reason: "Deferred",
        message: "Node didn't have enough resource: cpu, requested: 500, used: 600, capacity: 1000",
        observedGeneration: 2,
      },
    ]);
    expect(events.lines()[0]).toBe(
      'Warning ResizeDeferred: Pod resize OutOfcpu: {"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"500m"}}}],"generation":2,"error":"Node didn\'t have enough resource: cpu, requested: 500, used: 600, capacity: 1000"}',
    );
    expect(m.hasPendingResizes()).toBe(true);
    synced.length = 0;
    others.delete("b");
    m.removePod("b");
    expect(conditions.list("a").map((c) => c.type)).toEqual(["PodResizeInProgress"]);
    expect(m.fromAllocation(big).spec!.containers[0]!.resources!.requests!.cpu).toBe("500m");
    expect(synced).toEqual(["a"]);
  });

  test("a deferred resize is tried again when another pod reaches a terminal phase (pod_terminated), not on other status changes", () => {
    const { m, conditions, add, others } = setup();
    add(pod("a", "200m"));
    const b = pod("b", "600m");
    add(b);
    m.updatePod(pod("a", "500m", 2));
    expect(conditions.isDeferred("a")).toBe(true);
    const withPhase = (phase: string): Pod => ({ ...b, status: { phase } });
    m.reconcilePod(withPhase("Running"));
    expect(conditions.isDeferred("a")).toBe(true);
    // Finished: the admission no longer counts it (the agent's active pods leave terminal ones out).
    others.delete("b");
    m.reconcilePod(withPhase("Succeeded"));
    expect(conditions.list("a").map((c) => c.type)).toEqual(["PodResizeInProgress"]);
    expect(m.hasPendingResizes()).toBe(false);
  });

  test("Infeasible stays Infeasible and is not retried; a resize reverted to the allocation clears the condition", () => {
    const { m, conditions, setInfeasible, add } = setup();
    add(pod("a", "200m"));
    setInfeasible(true);
    m.updatePod(pod("a", "300m", 2));
    expect(conditions.list("a")).toMatchObject([{ type: "PodResizePending", reason: "Infeasible", message: "no node could" }]);
    expect(m.hasPendingResizes()).toBe(false);
    m.updatePod(pod("a", "200m", 3));
    expect(conditions.list("a")).toEqual([]);
  });

  test("a deferred resize is retried on its own after 30 s", async () => {
    const { m, conditions, add, others, clock } = setup();
    add(pod("a", "200m"));
    add(pod("b", "700m"));
    m.updatePod(pod("a", "400m", 2));
    expect(conditions.isDeferred("a")).toBe(true);
    others.delete("b"); // b's requests no longer count (it finished without being removed)
    const stop = new AbortController();
    const done = m.run(stop.signal);
    await clock.advance(RESIZE_FIRST_RETRY_MS - 1);
    expect(conditions.isDeferred("a")).toBe(true);
    await clock.advance(1);
    expect(conditions.isDeferred("a")).toBe(false);
    expect(conditions.list("a").map((c) => c.type)).toEqual(["PodResizeInProgress"]);
    stop.abort();
    await done;
  });

  test("the allocation survives a restart: a pod whose spec asks for more is admitted with what was allocated", () => {
    const dir = mkdtempSync(join(tmpdir(), "alloc-"));
    dirs.push(dir);
    const file = join(dir, "allocated_pods_state.json");
    const first = setup(file);
    first.add(pod("a", "200m"));
    first.others.set("b", pod("b", "700m"));
    first.m.updatePod(pod("a", "400m", 2));
    expect(first.conditions.isDeferred("a")).toBe(true);

    const second = setup(file);
    let admittedWith = "";
    second.others.set("b", pod("b", "700m"));
    second.m.addPod(pod("a", "400m", 2), (p) => {
      admittedWith = String(p.spec!.containers[0]!.resources!.requests!.cpu);
      return { admit: true };
    });
    expect(admittedWith).toBe("200m");
    expect(second.m.hasPendingResizes()).toBe(true);
  });
});
