// Exec probes of many pods under load, on a FakeClock with a fake runtime whose ExecSyncs take time:
// the node's cap, bursts spread by the queue, probes waiting their turn on a saturated node (their
// missed ticks skipped, never failed; every pod served in turn), timeouts while the runtime was slow for everyone (excused, a bounded number of times), a
// lone hanging container (counted, as the kubelet counts it), and a manager that costs nothing until
// a pod has probes.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { ProbeManager } from "../../src/prober/manager";
import type { ProbeObservation, ProbeUpdate } from "../../src/prober/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger, textFields, type LogFields } from "../../src/util/log";
import { execProbe, FakeExec, probedPod, type ExecBehaviour } from "./fakes";

const T0 = Date.UTC(2026, 0, 1);

function node(execSlots: number) {
  const clock = new FakeClock(T0);
  const exec = new FakeExec(clock);
  const updates: ProbeUpdate[] = [];
  const observations: ProbeObservation[] = [];
  const warnings: string[] = [];
  const log = { ...createLogger("text", -999), warn: (m: string, f?: LogFields) => void warnings.push(`${m}${textFields(f)}`) };
  const manager = new ProbeManager({ runner: exec, clock, onUpdate: (u) => updates.push(u), observe: (o) => observations.push(o), execSlots, log });
  return { clock, exec, updates, observations, warnings, manager };
}

/** `n` pods whose one container has the probe, all started at T0; container IDs c0, c1, … */
function startPods(m: ProbeManager, n: number, container: Parameters<typeof probedPod>[1]): Pod[] {
  const pods = Array.from({ length: n }, (_, i) => probedPod(`u${i}`, container));
  pods.forEach((p, i) => m.syncPod(p, `10.0.0.${i + 1}`, [{ name: "app", id: `c${i}`, startedAt: T0 }]));
  return pods;
}

const readyCount = (m: ProbeManager, n: number) => Array.from({ length: n }, (_, i) => m.readiness(`u${i}`, "app")).filter(Boolean).length;

function setAll(exec: FakeExec, n: number, b: ExecBehaviour): void {
  for (let i = 0; i < n; i++) exec.set(`c${i}`, b);
}

describe("exec probes under load", () => {
  test("never more than execSlots ExecSyncs in the runtime; a burst of first probes comes out of the queue spread, and stays spread", async () => {
    const { clock, exec, manager, observations } = node(4);
    setAll(exec, 20, { runsMs: 100 });
    startPods(manager, 20, { readinessProbe: execProbe({ periodSeconds: 1 }) });
    // All 20 were due at once: four at a time, 100 ms each, the last ones start at 400 ms.
    await clock.advance(999);
    expect(exec.calls.map((c) => c.at - T0)).toEqual([0, 0, 0, 0, 100, 100, 100, 100, 200, 200, 200, 200, 300, 300, 300, 300, 400, 400, 400, 400]);
    expect(readyCount(manager, 20)).toBe(20);
    // From then on each probe's period counts from when it actually ran: nobody waits for a slot.
    let mostWaiting = 0;
    for (let t = 0; t < 5000; t += 50) {
      await clock.advance(50);
      mostWaiting = Math.max(mostWaiting, manager.execLoad()!.waiting);
    }
    expect(mostWaiting).toBe(0);
    expect(exec.maxInFlight).toBe(4);
    expect(exec.calls).toHaveLength(20 * 6);
    expect(observations.every((o) => o.result === "successful")).toBe(true);
    await manager.stop();
  });

  test("more exec probes than the runtime can run: each waits its turn, the ticks missed meanwhile are skipped, never failed; every pod is probed in turn and turns Ready", async () => {
    // One slot, 250 ms per ExecSync: 4 a second for 20 pods probed every second.
    const { clock, exec, manager, observations, updates, warnings } = node(1);
    setAll(exec, 20, { runsMs: 250 });
    startPods(manager, 20, { readinessProbe: execProbe({ periodSeconds: 1 }) });
    await clock.advance(4999);
    // Round robin: in 5 s each of the 20 ran once, in the order they came, and all but the last
    // (answering at 5 s) are Ready.
    expect(exec.calls.map((c) => c.containerId)).toEqual(Array.from({ length: 20 }, (_, i) => `c${i}`));
    expect(readyCount(manager, 20)).toBe(19);
    await clock.advance(1);
    expect(readyCount(manager, 20)).toBe(20);
    await clock.advance(25_000);
    expect(exec.maxInFlight).toBe(1);
    // Every pod had its fair share (give or take where each worker's tick falls), and everything that
    // ran counted and succeeded.
    const perPod = Array.from({ length: 20 }, (_, i) => exec.callsFor(`c${i}`));
    expect(Math.min(...perPod)).toBeGreaterThanOrEqual(5);
    expect(Math.max(...perPod) - Math.min(...perPod)).toBeLessThanOrEqual(2);
    // The slot never idled: one ExecSync every 250 ms, from 0 to 30 s.
    expect(exec.calls).toHaveLength(121);
    expect(observations).toHaveLength(exec.calls.length - exec.inFlight);
    expect(observations.every((o) => o.result === "successful")).toBe(true);
    expect(updates.every((u) => u.result === "success")).toBe(true);
    // Said once (at most once a minute), with the counts.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("exec probes short of time (the runtime was slow for every container) skipped=1 timeoutsNotCounted=0 slots=1 ");
    await manager.stop();
  });

  test("liveness is never failed by the agent's queue: a saturated node skips liveness probes, it does not kill", async () => {
    const { clock, exec, manager, updates, observations } = node(1);
    setAll(exec, 10, { setupMs: 700, runsMs: 100 });
    startPods(manager, 10, { livenessProbe: execProbe({ periodSeconds: 1, failureThreshold: 1 }) });
    await clock.advance(20_000);
    expect(updates).toEqual([]);
    expect(observations.length).toBeGreaterThan(0);
    expect(observations.every((o) => o.result === "successful")).toBe(true);
    await manager.stop();
  });

  test("timeouts while the runtime is slow for every container are not counted, failureThreshold times in a row; past that they count", async () => {
    const { clock, exec, manager, updates, observations } = node(8);
    startPods(manager, 5, { readinessProbe: execProbe({ periodSeconds: 1, failureThreshold: 3 }) });
    await clock.advance(0);
    expect(readyCount(manager, 5)).toBe(5);
    // The runtime turns slow for everyone for three periods: every command runs past its 1 s.
    setAll(exec, 5, { runsMs: 5000 });
    await clock.advance(3000);
    setAll(exec, 5, { exit: 0 });
    await clock.advance(5000);
    expect(readyCount(manager, 5)).toBe(5);
    expect(observations.some((o) => o.result === "failed")).toBe(false);
    expect(updates.filter((u) => u.result === "failure")).toEqual([]);
    // Slow for good, from the next probe (in 1 s): three excused, then three counted, and readiness goes.
    setAll(exec, 5, { runsMs: 5000 });
    await clock.advance(6999);
    expect(readyCount(manager, 5)).toBe(5);
    await clock.advance(1);
    expect(readyCount(manager, 5)).toBe(0);
    expect(observations.filter((o) => o.result === "failed")).toHaveLength(5 * 3);
    await manager.stop();
  });

  test("a container that hangs while the others answer is failed as the kubelet fails it: its liveness probe restarts it after failureThreshold", async () => {
    const { clock, exec, manager, updates } = node(2);
    setAll(exec, 6, { runsMs: 20 });
    exec.set("c3", { runsMs: 60_000 });
    startPods(manager, 6, { livenessProbe: execProbe({ periodSeconds: 1, failureThreshold: 3 }) });
    await clock.advance(10_000);
    // Three timeouts of 1 s each, one a period (a few ms later each for its turn at a slot): the third is the threshold.
    expect(updates.map((u) => `${u.containerId}:${u.probeType}:${u.result}`)).toEqual(["c3:liveness:failure"]);
    expect(updates[0]!.time - T0).toBeWithin(3000, 3100);
    await manager.stop();
  });

  test("a node without probed pods costs nothing: no prober, no exec slots, no timers", async () => {
    const { clock, exec, manager } = node(4);
    const plain: Pod = { metadata: { name: "plain", namespace: "default", uid: "p" }, spec: { containers: [{ name: "app", image: "x" }] } };
    manager.syncPod(plain, "10.0.0.9", [{ name: "app", id: "p1", startedAt: T0 }]);
    expect(manager.execLoad()).toBeUndefined();
    expect(clock.pending()).toBe(0);
    await clock.advance(60_000);
    expect(exec.calls).toEqual([]);
    startPods(manager, 1, { readinessProbe: execProbe() });
    expect(manager.execLoad()?.slots).toBe(4);
    await manager.stop();
  });
});
