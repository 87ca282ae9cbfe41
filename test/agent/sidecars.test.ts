// Native sidecars and the network readiness gate through the whole agent (sync loop, pod workers,
// PodSyncer, status) on the fake runtime and a fake clock: the order in which a pod's containers
// start and stop, a sidecar's restarts, a Job-like pod's end, and pods waiting for the runtime's network.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import { Agent } from "../../src/agent/agent";
import { PodConfig } from "../../src/config";
import type { ContainerConfigInput } from "../../src/cri/types";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRuntime } from "../fakes/runtime";
import { FakeRecorder } from "../fakes/events";
import { FakeSource } from "../fakes/seams";
import { pod, runAgent } from "./fixtures";

const root = mkdtempSync(join(tmpdir(), "nodeagent-sidecars-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An agent on the fake runtime fed by one file source; `put` replaces the source's pods. */
async function agentOn(rt: FakeRuntime, clock: FakeClock, events = new FakeRecorder()) {
  const config = new PodConfig({ clock, log: createLogger("text", -1) });
  const agent = new Agent({
    runtime: rt,
    pleg: new Pleg(rt, clock, { mode: "generic" }),
    config,
    sources: [new FakeSource("file")],
    random: () => 0,
    clock,
    log: createLogger("text", -1),
    runtimeConfig: {
      podLogsRoot: join(root, "logs"),
      podsDir: join(root, "pods"),
      cgroupRoot: "nodeagent-unit-test",
      nodeName: "node-a",
      hostIP: "192.0.2.10",
    },
    node: async () => ({}),
    events,
  });
  const run = runAgent(agent, clock);
  await run.settle();
  const status = (name = "web") => agent.pods().find((p) => p.metadata?.name === name)!.status!;
  const put = async (...pods: Pod[]) => {
    config.apply({ source: "file", pods, errors: [] });
    await run.settle();
  };
  /** Removes every pod and lets the clock run while they stop (a stop that takes time waits on the clock). */
  const removeAll = async (seconds: number) => {
    config.apply({ source: "file", pods: [], errors: [] });
    for (let i = 0; i < seconds * 2; i++) await clock.advance(500);
    await run.settle();
  };
  /** Lets the PLEG's next relist (every second) see what the runtime did, and the agent act on it. */
  const relist = async () => {
    await clock.advance(1000);
    await run.settle();
  };
  return { agent, status, put, removeAll, relist, stop: run.stop };
}

const created = (rt: FakeRuntime) => (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((a) => a.config.metadata?.name);
const running = (rt: FakeRuntime, name: string) => rt.containersNamed(name).find((c) => c.state === "CONTAINER_RUNNING");

describe("native sidecars through the agent", () => {
  test("the sidecar starts first, the app beside it; a sidecar that exits is restarted under restartPolicy Never; the finished pod stops its sidecar and Succeeds", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await agentOn(rt, clock);
    await a.put(pod({ inits: ["proxy"], sidecars: ["proxy"], containers: ["app"], restartPolicy: "Never" }));
    await a.relist();
    expect(created(rt)).toEqual(["proxy", "app"]);
    let s = a.status();
    expect(s.phase).toBe("Running");
    expect(s.conditions?.find((c) => c.type === "Initialized")?.status).toBe("True");
    expect(s.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(s.initContainerStatuses?.map((c) => [c.name, !!c.state?.running, c.started, c.ready])).toEqual([["proxy", true, true, true]]);

    rt.exit(running(rt, "proxy")!.id, 137);
    await a.relist();
    expect(created(rt)).toEqual(["proxy", "app", "proxy"]);
    expect(a.status().initContainerStatuses?.[0]).toMatchObject({ restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 137 } } });

    rt.exit(running(rt, "app")!.id, 0);
    await a.relist();
    await a.relist();
    expect(running(rt, "proxy")).toBeUndefined();
    s = a.status();
    expect(s.phase).toBe("Succeeded");
    expect(s.initContainerStatuses?.[0]?.state?.terminated).toBeDefined();
    // Nothing starts again.
    await clock.advance(60_000);
    await a.relist();
    expect(created(rt)).toHaveLength(3);
    await a.stop();
  });

  test("a sidecar with a startupProbe holds the next init container until the probe succeeds", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.execResult = { exitCode: 1, stdout: "", stderr: "not yet" };
    const a = await agentOn(rt, clock);
    const p = pod({ inits: ["proxy", "setup"], sidecars: ["proxy"], containers: ["app"] });
    p.spec!.initContainers![0]!.startupProbe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 100 };
    rt.exitOnStart.set("setup", 0);
    await a.put(p);
    await a.relist();
    await a.relist();
    expect(created(rt)).toEqual(["proxy"]);
    expect(a.status().phase).toBe("Pending");
    expect(a.status().initContainerStatuses?.[0]?.started).toBe(false);
    rt.execResult = { exitCode: 0, stdout: "", stderr: "" };
    await a.relist();
    await a.relist();
    await a.relist();
    expect(created(rt)).toEqual(["proxy", "setup", "app"]);
    expect(a.status().phase).toBe("Running");
    await a.stop();
  });

  test("a sidecar's failed liveness probe restarts it even under restartPolicy Never, and its status says so", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await agentOn(rt, clock);
    const p = pod({ inits: ["proxy"], sidecars: ["proxy"], containers: ["app"], restartPolicy: "Never" });
    p.spec!.initContainers![0]!.livenessProbe = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: 1 };
    await a.put(p);
    await a.relist();
    expect(created(rt)).toEqual(["proxy", "app"]);
    rt.execResult = { exitCode: 1, stdout: "", stderr: "" };
    // Killed and started again at once, then once more (the kubelet's doBackOff sees no earlier exit
    // the first time); from then on the crash-loop backoff holds it (10 s).
    for (let i = 0; i < 4; i++) await a.relist();
    expect(created(rt)).toEqual(["proxy", "app", "proxy", "proxy"]);
    expect(a.status().initContainerStatuses![0]!.state?.waiting?.reason).toBe("CrashLoopBackOff");
    for (let i = 0; i < 8; i++) await a.relist();
    expect(created(rt)).toEqual(["proxy", "app", "proxy", "proxy", "proxy"]);
    const proxy = a.status().initContainerStatuses![0]!;
    // Its probe fails at once again: the backoff doubles.
    expect(proxy).toMatchObject({
      restartCount: 3,
      state: { waiting: { reason: "CrashLoopBackOff", message: "back-off 20s restarting failed container=proxy pod=web_default(uid-1)" } },
    });
    expect(proxy.lastState?.terminated?.message).toStartWith("Container proxy failed liveness probe, will be restarted");
    expect(a.status().containerStatuses![0]).toMatchObject({ restartCount: 0, state: { running: {} } });
    await a.stop();
  });

  test("on deletion the app containers stop first, then the sidecars last-declared first, each with what is left of the grace period", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await agentOn(rt, clock);
    const p = pod({ inits: ["logs", "proxy"], sidecars: ["logs", "proxy"], containers: ["app", "worker"] });
    p.spec!.terminationGracePeriodSeconds = 30;
    await a.put(p);
    await a.relist();
    await a.relist();
    expect(created(rt)).toEqual(["logs", "proxy", "app", "worker"]);
    // Each container takes 3 s to stop after SIGTERM; when each stops is recorded.
    rt.stopTakesMs = () => 3000;
    const names = new Map([...rt.containers.values()].map((c) => [c.id, c.name]));
    const exited: [string | undefined, number][] = [];
    const exit = rt.exit.bind(rt);
    rt.exit = (id, code, reason) => {
      exited.push([names.get(id), clock.now()]);
      exit(id, code, reason);
    };
    const t0 = clock.now();
    await a.removeAll(15);
    // Every kill starts at once, but a sidecar's StopContainer waits for its turn, and its grace
    // period is what is left of the pod's.
    const stops = rt.callsOf("stopContainer") as { id: string; timeoutSeconds: number }[];
    // (The app containers stop at once, in no particular order between them.)
    const byName = (x: [string | undefined, number], y: [string | undefined, number]) => x[1] - y[1] || (x[0] ?? "").localeCompare(y[0] ?? "");
    expect(stops.map((s): [string | undefined, number] => [names.get(s.id), -s.timeoutSeconds]).sort(byName)).toEqual([
      ["app", -30],
      ["worker", -30],
      ["proxy", -27],
      ["logs", -24],
    ]);
    expect(exited.map(([n, t]): [string | undefined, number] => [n, Math.round((t - t0) / 1000)]).sort(byName)).toEqual([
      ["app", 3],
      ["worker", 3],
      ["proxy", 6],
      ["logs", 9],
    ]);
    await a.stop();
  });
});

describe("network readiness gate", () => {
  test("while the runtime's network is not ready only host-network pods start; the others wait with the kubelet's message and start once it is", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.networkNotReady = { reason: "NetworkPluginNotReady", message: "Network plugin returns error: cni plugin not initialized" };
    const events = new FakeRecorder();
    const a = await agentOn(rt, clock, events);
    expect(a.agent.runtimeState.networkErrors()).toBe(
      "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
    );
    const host = pod({ hostNetwork: true });
    host.metadata = { name: "host", namespace: "default", uid: "uid-host" };
    await a.put(pod({ inits: ["setup"] }), host);
    expect(rt.sandboxes.size).toBe(1);
    expect(a.status("host").phase).toBe("Running");
    const waiting = a.status();
    const message =
      "network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized";
    expect(waiting.phase).toBe("Pending");
    expect(waiting.containerStatuses?.[0]?.state?.waiting).toEqual({ reason: "ContainerCreating", message });
    expect(waiting.initContainerStatuses?.[0]?.state?.waiting).toEqual({ reason: "PodInitializing", message });
    expect(events.events.filter((e) => e.reason === "NetworkNotReady").map((e) => [e.ref.name, e.type, e.message])).toEqual([["web", "Warning", message]]);
    // Still waiting at its retry (the kubelet's 10 s sync backoff).
    await clock.advance(10_000);
    await a.relist();
    expect(rt.sandboxes.size).toBe(1);

    rt.networkNotReady = undefined;
    await clock.advance(5_000); // the runtime state's next Status
    await clock.advance(10_000); // the pod's retry
    await a.relist();
    expect(a.agent.runtimeState.networkErrors()).toBeUndefined();
    expect(rt.sandboxes.size).toBe(2);
    expect(created(rt)).toContain("setup");
    await a.stop();
  });
});
