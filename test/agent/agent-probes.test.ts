// The Agent end to end on a fake runtime: probes, shutdown, pods from the API server.
// PodConfig updates, the generic PLEG's relists, the 1 s sync tick and the 2 s housekeeping drive real
// pod workers and a real PodSyncer, whose CRI calls land in the in-memory FakeRuntime; time moves only
// when the FakeClock is advanced (agent-harness.ts).
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { SHUTDOWN_GRACE_MS, type AgentOptions } from "../../src/agent/agent";
import type { SourceReport } from "../../src/config";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";
import { FakeProber, FakeStatusManager } from "../fakes/seams";
import { pod } from "./fixtures";
import { agentRoot, containerStatus, created, fromFile, probed, readyCondition, startAgentIn, statusOf, type RunningAgent } from "./agent-harness";

/** Each app container readiness the agent publishes, in order. */
class ReadinessRecorder extends FakeStatusManager {
  readonly ready: (boolean | undefined)[] = [];
  override setPodStatus(pod: Pod, status: ApiPodStatus): void {
    super.setPodStatus(pod, status);
    this.ready.push(status.containerStatuses?.[0]?.ready);
  }
}

const root = agentRoot();
const startAgent = (rt: FakeRuntime, clock: FakeClock, opts: Parameters<typeof startAgentIn>[3] = {}): Promise<RunningAgent> =>
  startAgentIn(root, rt, clock, opts);

describe("Agent: probes", () => {
  test("readiness sets the container's ready and the pod's Ready condition, both ways", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const observed: string[] = [];
    const a = await startAgent(rt, clock, { hooks: { probeObserved: (o) => observed.push(`${o.probeType}:${o.result}`) } });
    rt.execResult = { exitCode: 1, stdout: "", stderr: "starting" };
    a.config.apply(fromFile(probed("readinessProbe")));
    await a.settle();
    // The first probe runs as the container starts and fails: not ready, as the initial value.
    expect(containerStatus(a.agent, "app")!.ready).toBe(false);
    expect(readyCondition(a)).toBe("False");
    rt.execResult = { exitCode: 0, stdout: "", stderr: "" };
    await clock.advance(1000);
    await a.settle();
    expect(containerStatus(a.agent, "app")!.ready).toBe(true);
    expect(readyCondition(a)).toBe("True");
    rt.execResult = { exitCode: 1, stdout: "", stderr: "not yet" };
    await clock.advance(2000);
    await a.settle();
    expect(readyCondition(a)).toBe("True"); // two failures: below failureThreshold 3
    await clock.advance(1000);
    await a.settle();
    expect(containerStatus(a.agent, "app")!.ready).toBe(false);
    expect(readyCondition(a)).toBe("False");
    expect(observed.filter((o) => o === "readiness:successful")).toHaveLength(1);
    expect(observed.filter((o) => o === "readiness:failed")).toHaveLength(4);
    // Readiness never kills: one container throughout.
    expect(created(rt)).toEqual(["app"]);
    await a.stop();
  });

  test("GET /pods reuses a status until something it is computed from changes; a readiness result shows at once, without a sync", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    let ready: boolean | undefined = true;
    const prober: AgentOptions["prober"] = () => ({
      syncPod() {},
      stopLivenessAndStartup() {},
      removePod() {},
      cleanupPods() {},
      result: () => undefined,
      readiness: () => ready,
      started: () => true,
      stop: async () => {},
    });
    const a = await startAgent(rt, clock, { prober });
    a.config.apply(fromFile(probed("readinessProbe")));
    await a.settle();
    const first = statusOf(a.agent);
    expect(first.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    // Nothing changed: the very same status, not a new computation, and the very same pod object.
    expect(statusOf(a.agent)).toBe(first);
    expect(a.agent.pods()[0]).toBe(a.agent.pods()[0]!);
    await clock.advance(5_000);
    await a.settle();
    expect(statusOf(a.agent)).toBe(first);

    // The prober's result turns; no event reaches the worker, yet the next read shows it, dated now.
    const before = a.agent.pods()[0];
    ready = false;
    const notReady = statusOf(a.agent);
    expect(a.agent.pods()[0]).not.toBe(before!);
    expect(notReady).not.toBe(first);
    expect(notReady.containerStatuses?.[0]?.ready).toBe(false);
    const cond = notReady.conditions?.find((c) => c.type === "Ready");
    expect([cond?.status, cond?.lastTransitionTime]).toEqual(["False", new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace(".000Z", "Z")]);
    expect(statusOf(a.agent)).toBe(notReady);

    // The runtime's status changes (the container exits): the relist's new entry gives a new status.
    rt.exit(rt.containersNamed("app")[0]!.id, 1);
    await clock.advance(1000);
    await a.settle();
    expect(
      statusOf(a.agent).containerStatuses?.[0]?.lastState?.terminated?.exitCode ?? statusOf(a.agent).containerStatuses?.[0]?.state?.terminated?.exitCode,
    ).toBe(1);
    await a.stop();
  });

  test("a liveness failure kills the container with the reason in its status and restarts it", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.execResult = { exitCode: 1, stdout: "", stderr: "" };
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(probed("livenessProbe", { failureThreshold: 2 })));
    await a.settle();
    const first = containerStatus(a.agent, "app")!.containerID;
    expect(rt.callsOf("stopContainer")).toHaveLength(0); // the first probe failed: below failureThreshold 2
    await clock.advance(1000);
    await a.settle();
    expect(rt.callsOf("stopContainer")).toHaveLength(1);
    expect(created(rt)).toEqual(["app", "app"]);
    const app = containerStatus(a.agent, "app")!;
    expect(app.containerID).not.toBe(first);
    expect(app.restartCount).toBe(1);
    expect(app.state?.running).toBeDefined();
    expect(app.lastState?.terminated?.message).toStartWith("Container app failed liveness probe, will be restarted");
    // The container GC keeps that dead instance: it is the lastState while the new one runs.
    rt.execResult = { exitCode: 0, stdout: "", stderr: "" };
    await clock.advance(4000);
    await a.settle();
    expect(rt.containersNamed("app")).toHaveLength(2);
    expect(containerStatus(a.agent, "app")!.lastState?.terminated?.message).toStartWith("Container app failed liveness probe");
    await a.stop();
  });

  test("restartPolicy Never: a liveness failure kills the container and the pod is done", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.execResult = { exitCode: 1, stdout: "", stderr: "" };
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(probed("livenessProbe", { failureThreshold: 1, restartPolicy: "Never" })));
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    const app = containerStatus(a.agent, "app")!;
    expect(app.state?.terminated?.message).toStartWith("Container app failed liveness probe, will not be restarted");
    expect(statusOf(a.agent).phase).toBe("Failed");
    await a.stop();
  });

  for (const [was, probeNow] of [
    [true, 1],
    [false, 0],
  ] as const) {
    test(`an agent restart keeps a ${was ? "ready" : "not-ready"} container ${was ? "ready" : "not ready"} until it is probed again`, async () => {
      const clock = new FakeClock();
      const rt = new FakeRuntime(clock);
      const stateDir = mkdtempSync(join(root, "state-"));
      rt.execResult = { exitCode: was ? 0 : 1, stdout: "", stderr: "" };
      const first = await startAgent(rt, clock, { stateDir });
      first.config.apply(fromFile(probed("readinessProbe", { failureThreshold: 1 })));
      await first.settle();
      expect(containerStatus(first.agent, "app")!.ready).toBe(was);
      await first.stop();

      // Some time later the container's health turns; the new agent has not probed it yet.
      await clock.advance(300);
      rt.execResult = { exitCode: probeNow, stdout: "", stderr: "" };
      // Every status the new agent publishes before the probe says the same (the one its first sync
      // publishes before acting included): readiness flips in neither direction on a restart.
      const published = new ReadinessRecorder();
      const second = await startAgent(rt, clock, {
        stateDir,
        before: fromFile(probed("readinessProbe", { failureThreshold: 1 })),
        statusManager: published,
      });
      await second.settle();
      expect(containerStatus(second.agent, "app")!.ready).toBe(was);
      expect(readyCondition(second)).toBe(was ? "True" : "False");
      expect(published.ready.length).toBeGreaterThan(0);
      expect(published.ready.every((r) => r === was)).toBe(true);
      // The adopted worker probes within one period (the kubelet's jitter), and the result shows.
      await clock.advance(1000);
      await second.settle();
      await clock.advance(1000);
      await second.settle();
      expect(containerStatus(second.agent, "app")!.ready).toBe(!was);
      expect(created(rt)).toEqual(["app"]);
      await second.stop();
    });
  }

  test("what GET /pods reported is kept across a restart, also when the agent stopped before the sync loop delivered the change", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const stateDir = mkdtempSync(join(root, "state-"));
    /** A prober whose readiness the test sets, and which sends no updates: one still on its way. */
    class SetProber extends FakeProber {
      ready: boolean | undefined;
      override readiness(): boolean | undefined {
        return this.ready;
      }
    }
    let prober!: SetProber;
    const first = await startAgent(rt, clock, { stateDir, prober: (u) => (prober = new SetProber(u)) });
    prober.ready = false;
    first.config.apply(fromFile(probed("readinessProbe")));
    await first.settle();
    expect(containerStatus(first.agent, "app")!.ready).toBe(false);
    // The prober has the container ready and GET /pods says so; the agent stops before a sync.
    prober.ready = true;
    expect(containerStatus(first.agent, "app")!.ready).toBe(true);
    await first.stop();
    // The next agent has not probed it yet: it reports what was reported last, ready.
    const second = await startAgent(rt, clock, { stateDir, before: fromFile(probed("readinessProbe")), prober: (u) => new FakeProber(u) });
    expect(containerStatus(second.agent, "app")!.ready).toBe(true);
    await second.stop();
  });
});

describe("Agent: shutdown", () => {
  test("stopping waits for a hung runtime call only SHUTDOWN_GRACE_MS, then returns", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const release = rt.hold("createContainer");
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(pod()));
    await clock.advance(0);
    await flushMicrotasks();
    expect(rt.callsOf("createContainer")).toHaveLength(1);
    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    await clock.advance(SHUTDOWN_GRACE_MS - 1);
    expect(stopped).toBe(false);
    await clock.advance(1);
    await stopping;
    expect(stopped).toBe(true);
    release();
  });
});

describe("Agent: pods from the API server", () => {
  const fromApi = (...pods: Pod[]): SourceReport => ({ source: "api", pods, errors: [] });
  const deleting = (p: Pod, grace: number): Pod => ({
    ...p,
    metadata: { ...p.metadata, deletionTimestamp: "2026-11-21T10:00:00Z", deletionGracePeriodSeconds: grace },
  });

  test("a graceful deletion stops the containers within deletionGracePeriodSeconds, not the spec's grace, and reports the pod terminated", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const sm = new FakeStatusManager();
    const terminated = sm.terminated;
    const a = await startAgent(rt, clock, { sources: ["api"], statusManager: sm });
    const p = { ...pod(), spec: { ...pod().spec!, terminationGracePeriodSeconds: 30 } };
    a.config.apply(fromApi(p));
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    a.config.apply(fromApi(deleting(p, 3)));
    await a.settle();
    expect(rt.callsOf("stopContainer")).toEqual([expect.objectContaining({ timeoutSeconds: 3 })]);
    expect(terminated).toEqual(["web"]);
    // Terminated, not removed: the API server still has the pod until the final delete.
    expect(rt.callsOf("removePodSandbox")).toHaveLength(0);
    a.config.apply(fromApi());
    await a.settle();
    expect(rt.callsOf("removePodSandbox")).toHaveLength(1);
    await a.stop();
  });

  test("a pod that arrives already being deleted, or finished, is never started", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock, { sources: ["api"] });
    const done = { ...pod(), metadata: { ...pod().metadata, name: "done", uid: "uid-done" }, status: { phase: "Succeeded" } };
    a.config.apply(fromApi(deleting(pod(), 5), done));
    await a.settle();
    expect(rt.callsOf("runPodSandbox")).toHaveLength(0);
    expect(created(rt)).toEqual([]);
    await a.stop();
  });

  test("a status-only change (RECONCILE) does not sync the pod again", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const sm = new FakeStatusManager();
    const statuses = sm.set;
    const a = await startAgent(rt, clock, { sources: ["api"], statusManager: sm });
    a.config.apply(fromApi(pod()));
    await a.settle();
    const syncs = a.agent.workers.get("uid-1")!.syncs;
    a.config.apply(fromApi({ ...pod(), status: { phase: "Running" } }));
    await a.settle();
    expect(a.agent.workers.get("uid-1")!.syncs).toBe(syncs);
    expect(a.agent.workers.get("uid-1")!.pod.status?.phase).toBe("Running");
    expect(statuses.length).toBeGreaterThan(0);
    await a.stop();
  });
});
