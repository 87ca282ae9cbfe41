// The ProbeManager and its workers on a FakeClock with a fake ExecSync: periods, initial delays,
// thresholds, startup gating, initial results, timeouts, instances and adoption after a restart.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { EXEC_RUNTIME_GRACE_MS } from "../../src/prober/exec";
import { ProbeManager, type RunningContainer } from "../../src/prober/manager";
import type { ProbeObservation, ProbeUpdate } from "../../src/prober/types";
import { FakeClock } from "../../src/util/clock";
import { execProbe, FakeExec, probedPod } from "./fakes";

const T0 = Date.UTC(2026, 0, 1);

function setup(random = () => 0, execSlots = 4) {
  const clock = new FakeClock(T0);
  const exec = new FakeExec(clock);
  const updates: ProbeUpdate[] = [];
  const observations: ProbeObservation[] = [];
  const manager = new ProbeManager({ runner: exec, clock, onUpdate: (u) => updates.push(u), observe: (o) => observations.push(o), random, execSlots });
  const summary = () => updates.map((u) => `${u.probeType}:${u.result}`);
  return { clock, exec, updates, observations, manager, summary };
}

const running = (id: string, startedAt: number, name = "app"): RunningContainer => ({ name, id, startedAt });

describe("ProbeManager", () => {
  test("a readiness probe: not ready until it passes, probed after initialDelaySeconds then every period", async () => {
    const { clock, exec, manager, updates } = setup();
    const pod = probedPod("u1", { readinessProbe: execProbe({ initialDelaySeconds: 5, periodSeconds: 2 }) });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(manager.readiness("u1", "app")).toBe(false);
    await clock.advance(4999);
    expect(exec.callsFor("c1")).toBe(0);
    await clock.advance(1);
    expect(exec.callsFor("c1")).toBe(1);
    expect(exec.calls[0]).toEqual({ containerId: "c1", cmd: ["check"], timeoutSeconds: 1, at: T0 + 5000 });
    expect(manager.readiness("u1", "app")).toBe(true);
    expect(updates).toEqual([
      {
        podUid: "u1",
        namespace: "default",
        podName: "pod-u1",
        containerName: "app",
        containerId: "c1",
        probeType: "readiness",
        result: "success",
        reason: "",
        message: "Readiness probe succeeded",
        time: T0 + 5000,
      },
    ]);
    await clock.advance(6000);
    expect(exec.callsFor("c1")).toBe(4);
    // Unchanged results are not sent again.
    expect(updates).toHaveLength(1);
    await manager.stop();
  });

  test("readiness flips only after failureThreshold failures in a row, and back after successThreshold successes", async () => {
    const { clock, exec, manager, summary } = setup();
    const pod = probedPod("u1", { readinessProbe: execProbe({ periodSeconds: 1, failureThreshold: 2, successThreshold: 2 }) });
    exec.queue("c1", { exit: 0 }, { exit: 0 }, { exit: 1 }, { exit: 0 }, { exit: 1 }, { exit: 1 }, { exit: 0 }, { exit: 0 });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    const ready: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      ready.push(manager.readiness("u1", "app")!);
      await clock.advance(i === 0 ? 0 : 1000);
    }
    ready.push(manager.readiness("u1", "app")!);
    expect(ready).toEqual([false, false, true, true, true, true, false, false, true]);
    expect(summary()).toEqual(["readiness:success", "readiness:failure", "readiness:success"]);
    await manager.stop();
  });

  test("liveness: success until probed; a failure past the threshold is sent once, with the probe's grace period, and probing stops", async () => {
    const { clock, exec, manager, updates } = setup();
    const pod = probedPod("u1", { livenessProbe: execProbe({ periodSeconds: 1, failureThreshold: 3, terminationGracePeriodSeconds: 7 }) });
    exec.set("c1", { exit: 1, stdout: "unhealthy\n" });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(manager.result("c1", "liveness")).toBe("success");
    await clock.advance(1000);
    expect(manager.result("c1", "liveness")).toBe("success");
    await clock.advance(1000);
    expect(updates).toEqual([
      {
        podUid: "u1",
        namespace: "default",
        podName: "pod-u1",
        containerName: "app",
        containerId: "c1",
        probeType: "liveness",
        result: "failure",
        reason: "command 'check' exited with 1: unhealthy",
        message: "Liveness probe failed: command 'check' exited with 1: unhealthy",
        terminationGracePeriodSeconds: 7,
        time: T0 + 2000,
      },
    ]);
    await clock.advance(10_000);
    expect(exec.callsFor("c1")).toBe(3);
    expect(manager.activeWorkers()).toEqual([]);
    // The next sync, before the agent replaced the container, does not start probing it again.
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(manager.activeWorkers()).toEqual([]);
    // The replacement instance gets a new worker and starts from success.
    manager.syncPod(pod, "10.0.0.1", [running("c2", T0 + 13_000)]);
    expect(manager.result("c2", "liveness")).toBe("success");
    expect(manager.result("c1", "liveness")).toBeUndefined();
    expect(manager.activeWorkers()).toEqual([{ podUid: "u1", containerName: "app", containerId: "c2", type: "liveness" }]);
    await manager.stop();
  });

  test("the startup probe gates liveness and readiness: they start only once it passes", async () => {
    const { clock, exec, manager, summary } = setup();
    const pod = probedPod("u1", {
      startupProbe: execProbe({ exec: { command: ["started"] }, periodSeconds: 1, failureThreshold: 10 }),
      livenessProbe: execProbe({ exec: { command: ["alive"] }, periodSeconds: 5 }),
      readinessProbe: execProbe({ exec: { command: ["ready"] }, periodSeconds: 5 }),
    });
    exec.queue("c1", { exit: 1 }, { exit: 1 });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(manager.activeWorkers().map((w) => w.type)).toEqual(["startup"]);
    expect(manager.started("u1", "app")).toBe(false);
    expect(manager.readiness("u1", "app")).toBe(false);
    await clock.advance(1999);
    expect(exec.calls.map((c) => c.cmd[0])).toEqual(["started", "started"]);
    expect(manager.activeWorkers().map((w) => w.type)).toEqual(["startup"]);
    await clock.advance(1);
    expect(manager.started("u1", "app")).toBe(true);
    // The startup worker has ended; readiness and liveness probed at once (initial delay long past).
    expect(
      manager
        .activeWorkers()
        .map((w) => w.type)
        .sort(),
    ).toEqual(["liveness", "readiness"]);
    expect(exec.calls.map((c) => c.cmd[0])).toEqual(["started", "started", "started", "ready", "alive"]);
    expect(manager.readiness("u1", "app")).toBe(true);
    expect(summary()).toEqual(["startup:success", "readiness:success"]);
    // A later sync does not restart the startup probe of this instance.
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(
      manager
        .activeWorkers()
        .map((w) => w.type)
        .sort(),
    ).toEqual(["liveness", "readiness"]);
    await manager.stop();
  });

  test("a startup probe that fails its threshold is sent and ends; liveness and readiness never start", async () => {
    const { clock, exec, manager, summary } = setup();
    const pod = probedPod("u1", { startupProbe: execProbe({ periodSeconds: 1, failureThreshold: 2 }), readinessProbe: execProbe() });
    exec.set("c1", { exit: 2 });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(5000);
    expect(summary()).toEqual(["startup:failure"]);
    expect(exec.callsFor("c1")).toBe(2);
    expect(manager.activeWorkers()).toEqual([]);
    expect(manager.readiness("u1", "app")).toBe(false);
  });

  test("an exec probe's timeout is the command's own time, as the runtime measures it: a slow start in the runtime does not count", async () => {
    const { clock, exec, manager, updates, observations } = setup();
    const pod = probedPod("u1", {
      readinessProbe: execProbe({ exec: { command: ["sleep", "10"] }, timeoutSeconds: 2, periodSeconds: 5, successThreshold: 1 }),
    });
    // Answered at once; then 1.5 s for the runtime to start the command, which runs 1.9 s of its 2;
    // then a command that runs past its 2 s, ended by the runtime.
    exec.queue("c1", { exit: 0 }, { setupMs: 1500, runsMs: 1900 }, { runsMs: 10_000 });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(0);
    expect(manager.readiness("u1", "app")).toBe(true);
    await clock.advance(5000 + 3399);
    expect(observations.map((o) => o.result)).toEqual(["successful"]);
    await clock.advance(1);
    // The third, due at 10 s, is ended by the runtime at 12 s.
    await clock.advance(3600);
    expect(observations.map((o) => [o.result, o.durationSeconds])).toEqual([
      ["successful", 0],
      ["successful", 3.4],
      ["failed", 2],
    ]);
    // One failure of the default three: still ready.
    expect(updates.map((u) => u.result)).toEqual(["success"]);
    exec.set("c1", { runsMs: 10_000 });
    await clock.advance(10_000);
    // Failures at 12, 17 and 22 s: the third flips readiness.
    expect(updates.at(-1)).toMatchObject({ result: "failure", reason: 'command "sleep 10" timed out', time: T0 + 22_000 });
    expect(exec.calls.every((c) => c.timeoutSeconds === 2)).toBe(true);
    await manager.stop();
  });

  test("a runtime that never answers: a timeout at timeoutSeconds + EXEC_RUNTIME_GRACE_MS, and no ExecSync stacked on the one still in the runtime", async () => {
    const { clock, exec, manager, updates, observations } = setup();
    const pod = probedPod("u1", { readinessProbe: execProbe({ periodSeconds: 1, failureThreshold: 1 }) });
    exec.queue("c1", { exit: 0 }, "hang");
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(1000 + 1000 + EXEC_RUNTIME_GRACE_MS - 1);
    expect(manager.readiness("u1", "app")).toBe(true);
    await clock.advance(1);
    // The only container on the node: nothing says the runtime was slow for others, so it counts.
    expect(updates.map((u) => `${u.result}@${u.time - T0}`)).toEqual(["success@0", `failure@${2000 + EXEC_RUNTIME_GRACE_MS}`]);
    await clock.advance(20_000);
    expect(exec.callsFor("c1")).toBe(2);
    expect(observations).toHaveLength(2);
    await manager.stop();
  });

  test("a runtime DeadlineExceeded is a timeout failure; other CRI errors are retried 3 times, then thrown away", async () => {
    const { clock, exec, manager, updates, observations } = setup();
    const pod = probedPod("u1", { livenessProbe: execProbe({ periodSeconds: 1, failureThreshold: 1 }) });
    exec.queue("c1", { grpcCode: 14, details: "runtime restarting" }, { grpcCode: 14 }, { grpcCode: 14 }, { grpcCode: 14 }, { exit: 0 });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(0);
    // First attempt: three tries, all UNAVAILABLE: no result, no metric.
    expect(exec.callsFor("c1")).toBe(3);
    expect(observations).toEqual([]);
    await clock.advance(1000);
    // Second attempt: one more error, then an answer within the same attempt.
    expect(exec.callsFor("c1")).toBe(5);
    expect(observations.map((o) => o.result)).toEqual(["successful"]);
    exec.set("c1", { grpcCode: 4, details: "timeout 1s exceeded: context deadline exceeded" });
    await clock.advance(1000);
    expect(exec.callsFor("c1")).toBe(6);
    expect(updates).toMatchObject([{ probeType: "liveness", result: "failure", reason: 'command "check" timed out' }]);
  });

  test("a container that stops running loses its workers and results; a new instance starts from the initial values", async () => {
    const { clock, exec, manager } = setup();
    const pod = probedPod("u1", { readinessProbe: execProbe({ periodSeconds: 1 }) });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(0);
    expect(manager.readiness("u1", "app", "c1")).toBe(true);
    manager.syncPod(pod, "10.0.0.1", []);
    expect(manager.activeWorkers()).toEqual([]);
    expect(manager.result("c1", "readiness")).toBeUndefined();
    const before = exec.callsFor("c1");
    await clock.advance(5000);
    expect(exec.callsFor("c1")).toBe(before);
    manager.syncPod(pod, "10.0.0.1", [running("c2", T0 + 5000)]);
    expect(manager.readiness("u1", "app")).toBe(false);
    expect(manager.readiness("u1", "app", "c2")).toBe(false);
    await clock.advance(0);
    expect(manager.readiness("u1", "app", "c2")).toBe(true);
    await manager.stop();
  });

  test("readiness of containers without probes, of unknown pods, and of a second container", () => {
    const { manager } = setup();
    const pod: Pod = {
      metadata: { name: "two", namespace: "default", uid: "u2" },
      spec: {
        containers: [
          { name: "plain", image: "x" },
          { name: "probed", image: "x", readinessProbe: execProbe() },
        ],
      },
    };
    expect(manager.readiness("u2", "plain")).toBeUndefined();
    manager.syncPod(pod, "10.0.0.2", [running("p1", T0, "plain"), running("p2", T0, "probed")]);
    expect(manager.readiness("u2", "plain")).toBe(true);
    expect(manager.started("u2", "plain")).toBe(true);
    expect(manager.readiness("u2", "probed")).toBe(false);
    expect(manager.readiness("u2", "nosuch")).toBeUndefined();
    expect(manager.activeWorkers()).toEqual([{ podUid: "u2", containerName: "probed", containerId: "p2", type: "readiness" }]);
    manager.removePod("u2");
    expect(manager.activeWorkers()).toEqual([]);
    expect(manager.readiness("u2", "probed")).toBeUndefined();
  });

  test("after an agent restart: a container reported ready stays ready, and an unready one unready, until probed again", async () => {
    const T_RESTART = T0 + 3_600_000;
    const clock = new FakeClock(T_RESTART);
    const exec = new FakeExec();
    const updates: ProbeUpdate[] = [];
    const manager = new ProbeManager({ runner: exec, clock, onUpdate: (u) => updates.push(u), random: () => 0.5 });
    const probe = execProbe({ periodSeconds: 10, failureThreshold: 3 });
    const ready = probedPod("r", { readinessProbe: probe });
    const unready = probedPod("n", { readinessProbe: probe });
    const reported = new Map([
      ["c-ready", true],
      ["c-unready", false],
    ]);
    const seed = (c: RunningContainer) => ({ ready: reported.get(c.id) });
    // Both containers started an hour ago, before this agent: adopted.
    manager.syncPod(ready, "10.0.0.1", [running("c-ready", T0)], seed);
    manager.syncPod(unready, "10.0.0.2", [running("c-unready", T0)], seed);
    expect(manager.readiness("r", "app")).toBe(true);
    expect(manager.readiness("n", "app")).toBe(false);
    // The first probes are spread over a period (here half of it).
    exec.set("c-ready", { exit: 1 });
    exec.set("c-unready", { exit: 0 });
    await clock.advance(4999);
    expect(exec.calls).toEqual([]);
    await clock.advance(1);
    expect(exec.calls.map((c) => c.containerId).sort()).toEqual(["c-ready", "c-unready"]);
    // The unready one turned ready on its first success; the ready one needs three failures.
    expect(manager.readiness("n", "app")).toBe(true);
    expect(manager.readiness("r", "app")).toBe(true);
    await clock.advance(20_000);
    expect(manager.readiness("r", "app")).toBe(false);
    expect(updates.map((u) => `${u.podUid}:${u.result}@${(u.time - T_RESTART) / 1000}s`)).toEqual(["n:success@5s", "r:failure@25s"]);
    await manager.stop();
  });

  test("a container started after the manager was created is not adopted: no seed, no jitter", async () => {
    const { clock, exec, manager } = setup(() => 0.9);
    const pod = probedPod("u1", { readinessProbe: execProbe({ periodSeconds: 10 }) });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0 + 1)], () => ({ ready: true }));
    expect(manager.readiness("u1", "app")).toBe(false);
    await clock.advance(1);
    expect(exec.callsFor("c1")).toBe(1);
    await manager.stop();
  });

  test("a terminating pod keeps its readiness probe and stops liveness and startup", async () => {
    const { clock, manager } = setup();
    const pod = probedPod("u1", { livenessProbe: execProbe(), readinessProbe: execProbe() });
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    manager.stopLivenessAndStartup("u1");
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    expect(manager.activeWorkers().map((w) => w.type)).toEqual(["readiness"]);
    await clock.advance(0);
    manager.cleanupPods(new Set());
    expect(manager.activeWorkers()).toEqual([]);
  });

  test("a probe that overruns its period runs the next one at once, then keeps the period's grid", async () => {
    const { clock, exec, manager } = setup();
    const pod = probedPod("u1", { readinessProbe: execProbe({ periodSeconds: 2, timeoutSeconds: 5 }) });
    exec.queue("c1", { exit: 0 }, { runsMs: 60_000 });
    const at: number[] = [];
    const original = exec.execSync.bind(exec);
    exec.execSync = (id, cmd, t) => {
      at.push((clock.now() - T0) / 1000);
      return original(id, cmd, t);
    };
    manager.syncPod(pod, "10.0.0.1", [running("c1", T0)]);
    await clock.advance(12_000);
    // 0: answered; 2: runs until the runtime ends it at its 5 s timeout, at 7; 7: the buffered tick; then 8, 10, 12.
    expect(at).toEqual([0, 2, 7, 8, 10, 12]);
    await manager.stop();
  });

  test("an edited probe takes over on the running instance, keeping its result; a removed probe stops", async () => {
    const { clock, exec, manager } = setup();
    manager.syncPod(probedPod("u1", { readinessProbe: execProbe({ exec: { command: ["v1"] }, periodSeconds: 10 }) }), "10.0.0.1", [running("c1", T0)]);
    await clock.advance(0);
    expect(manager.readiness("u1", "app")).toBe(true);
    manager.syncPod(probedPod("u1", { readinessProbe: execProbe({ exec: { command: ["v2"] }, periodSeconds: 10 }) }), "10.0.0.1", [running("c1", T0)]);
    await clock.advance(0);
    expect(manager.readiness("u1", "app")).toBe(true);
    await clock.advance(10_000);
    expect(exec.calls.map((c) => c.cmd[0])).toEqual(["v1", "v2", "v2"]);
    manager.syncPod(probedPod("u1", {}), "10.0.0.1", [running("c1", T0)]);
    expect(manager.activeWorkers()).toEqual([]);
    expect(manager.readiness("u1", "app")).toBe(true);
    await clock.advance(20_000);
    expect(exec.calls).toHaveLength(3);
  });

  test("sidecars (init containers that always restart) are probed; plain init containers are not", async () => {
    const { manager } = setup();
    const pod = probedPod(
      "u1",
      { readinessProbe: execProbe() },
      {
        initContainers: [
          { name: "sidecar", image: "x", restartPolicy: "Always", readinessProbe: execProbe() },
          { name: "setup", image: "x", readinessProbe: execProbe() },
        ],
      },
    );
    manager.syncPod(pod, "10.0.0.1", [running("s1", T0, "sidecar"), running("i1", T0, "setup"), running("c1", T0)]);
    expect(
      manager
        .activeWorkers()
        .map((w) => w.containerName)
        .sort(),
    ).toEqual(["app", "sidecar"]);
    await manager.stop();
  });
});
