// The Agent end to end on a fake runtime: housekeeping, restartPolicy, runtime failures, a restart, a start cut short, health.
// PodConfig updates, the generic PLEG's relists, the 1 s sync tick and the 2 s housekeeping drive real
// pod workers and a real PodSyncer, whose CRI calls land in the in-memory FakeRuntime; time moves only
// when the FakeClock is advanced (agent-harness.ts).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { SHUTDOWN_GRACE_MS } from "../../src/agent/agent";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { grpcStatusError } from "../fakes/grpc";
import { FakeRuntime } from "../fakes/runtime";
import { pod } from "./fixtures";
import { agentRoot, containerStatus, created, fromFile, startAgentIn, statusOf, type RunningAgent } from "./agent-harness";

const root = agentRoot();
const startAgent = (rt: FakeRuntime, clock: FakeClock, opts: Parameters<typeof startAgentIn>[3] = {}): Promise<RunningAgent> =>
  startAgentIn(root, rt, clock, opts);

describe("Agent: housekeeping", () => {
  test("container GC removes the log folder a pod gone while the agent was down left, once every source has been seen", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    // The log folder of a pod no source has, with nothing left in the runtime (the orphan removal
    // does not see it): only container GC's sweep of the log folders clears it.
    const goneLogs = join(root, "logs", "default_gone_gone-uid");
    mkdirSync(goneLogs, { recursive: true });
    const a = await startAgent(rt, clock, { sources: ["file", "api"], containerGC: true });
    a.config.apply(fromFile(pod()));
    await a.settle();
    const liveLogs = join(root, "logs", "default_web_uid-1");
    expect(existsSync(liveLogs)).toBe(true);
    // A collection (each minute) while the API source has not been seen: the pod may still come back.
    await clock.advance(60_000);
    await a.settle();
    expect(existsSync(goneLogs)).toBe(true);
    a.config.apply({ source: "api", pods: [], errors: [] });
    await clock.advance(60_000);
    await a.settle();
    expect(existsSync(goneLogs)).toBe(false);
    // The running pod's folder and objects stay.
    expect(existsSync(liveLogs)).toBe(true);
    expect(statusOf(a.agent).phase).toBe("Running");
    await a.stop();
  });

  test("a runtime pod no source has is removed only once every source has been seen", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const orphanSandbox = rt.addSandbox({ uid: "orphan-uid", name: "left-over" });
    const orphanContainer = rt.addContainer(orphanSandbox, "app");
    const a = await startAgent(rt, clock, { sources: ["file", "api"] });
    a.config.apply(fromFile(pod()));
    await a.settle();
    // Only the file source has been seen: the API source may still bring the pod back.
    await clock.advance(10_000);
    a.config.apply({ source: "api", pods: [], errors: [], complete: false });
    await clock.advance(4000);
    expect(rt.sandboxes.has(orphanSandbox)).toBe(true);
    expect(rt.containers.get(orphanContainer)?.state).toBe("CONTAINER_RUNNING");

    a.config.apply({ source: "api", pods: [], errors: [] });
    await clock.advance(2000); // the next housekeeping
    await a.settle();
    expect(rt.sandboxes.has(orphanSandbox)).toBe(false);
    expect(rt.containers.has(orphanContainer)).toBe(false);
    // The pod a source has keeps running.
    expect(statusOf(a.agent).phase).toBe("Running");
    expect(rt.sandboxes.size).toBe(1);
    expect(a.agent.pods().map((p) => p.metadata?.uid)).toEqual(["uid-1"]);
    await a.stop();
  });
});

describe("Agent: restartPolicy", () => {
  test("Always: a crashing container restarts at once, then after 10 s, then after 20 s (CrashLoopBackOff), never before", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.exitOnStart.set("app", 1);
    const restarted: string[] = [];
    const a = await startAgent(rt, clock, { hooks: { containerRestarted: (_p, c) => restarted.push(c) }, containerGC: true });
    a.config.apply(fromFile(pod()));
    await a.settle();
    // The kubelet's doBackOff: the first exit has no backoff yet, so the first restart is immediate.
    expect(created(rt)).toHaveLength(2);
    let app = containerStatus(a.agent, "app")!;
    expect(app.restartCount).toBe(1);
    expect(app.state?.waiting).toEqual({ reason: "CrashLoopBackOff", message: "back-off 10s restarting failed container=app pod=web_default(uid-1)" });
    expect(app.lastState?.terminated?.exitCode).toBe(1);
    expect(statusOf(a.agent).phase).toBe("Running");

    await clock.advance(9000);
    expect(created(rt)).toHaveLength(2);
    await clock.advance(1000);
    await a.settle();
    expect(created(rt)).toHaveLength(3);
    app = containerStatus(a.agent, "app")!;
    expect(app.restartCount).toBe(2);
    expect(app.state?.waiting?.message).toStartWith("back-off 20s ");

    await clock.advance(19_000);
    expect(created(rt)).toHaveLength(3);
    await clock.advance(1000);
    await a.settle();
    expect(created(rt)).toHaveLength(4);
    expect(containerStatus(a.agent, "app")!.state?.waiting?.message).toStartWith("back-off 40s ");
    expect(restarted).toEqual(["app", "app", "app"]);
    // One sandbox throughout, and the container GC (every minute, the first at 1 min) keeps only the
    // newest dead instance of the four: the current one, dead too while in back-off.
    expect(rt.sandboxes.size).toBe(1);
    expect(rt.containersNamed("app")).toHaveLength(4);
    await clock.advance(30_000); // 62 s: one collection, and the next restart (at 70 s) not yet
    await a.settle();
    expect(created(rt)).toHaveLength(4);
    expect(rt.containersNamed("app")).toHaveLength(1);
    await a.stop();
  });

  test.each([
    [0, "Succeeded", "Completed"],
    [3, "Failed", "Error"],
  ])("Never: a container that exits %d stays exited, the pod is %s and its sandbox stopped", async (code, phase, reason) => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.exitOnStart.set("app", code);
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(pod({ restartPolicy: "Never" })));
    await a.settle();
    // Long enough for the periodic resync (1 min + jitter) to have run too.
    await clock.advance(120_000);
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    const s = statusOf(a.agent);
    expect(s.phase).toBe(phase);
    expect(s.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: code, reason });
    expect(s.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
    // The kubelet kills the sandbox of a pod with nothing left to run.
    expect([...rt.sandboxes.values()].map((sb) => sb.state)).toEqual(["SANDBOX_NOTREADY"]);
    await a.stop();
  });
});

describe("Agent: runtime failures", () => {
  test("a failed CreateContainer shows CreateContainerError in the pod status and is retried after the 10 s pod-sync backoff", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const fail = () => grpcStatusError("CreateContainer", 2, "failed to create containerd container: no space left on device");
    // Fails in the first sync and in the one the new sandbox's PLEG event causes.
    rt.failNext.set("createContainer", [fail(), fail()]);
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(pod()));
    await a.settle();
    expect(rt.callsOf("createContainer")).toHaveLength(2);
    expect(rt.containers.size).toBe(0);
    expect(containerStatus(a.agent, "app")?.state?.waiting).toEqual({
      reason: "CreateContainerError",
      // The kubelet shows the runtime's message alone (grpcstatus.FromError(err).Message()).
      message: "failed to create containerd container: no space left on device",
    });
    expect(statusOf(a.agent).phase).toBe("Pending");

    await clock.advance(9000);
    expect(rt.callsOf("createContainer")).toHaveLength(2);
    await clock.advance(1000);
    await a.settle();
    expect(rt.callsOf("createContainer")).toHaveLength(3);
    expect(containerStatus(a.agent, "app")?.state?.running).toBeDefined();
    expect(statusOf(a.agent).phase).toBe("Running");
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    await a.stop();
  });
});

describe("Agent: restart", () => {
  test.each([
    ["after the first relist", false],
    ["before the first relist (a source that has its pods at once)", true],
  ])("an agent restarted on the same runtime adopts the running pod when its config comes %s", async (_when, early) => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const first = await startAgent(rt, clock);
    first.config.apply(fromFile(pod()));
    await first.settle();
    expect(statusOf(first.agent).phase).toBe("Running");
    await first.stop();
    await clock.advance(5000);

    const second = await startAgent(rt, clock, early ? { before: fromFile(pod()) } : {});
    if (!early) second.config.apply(fromFile(pod()));
    await second.settle();
    await clock.advance(5000);
    await second.settle();
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    expect(rt.callsOf("createContainer")).toHaveLength(1);
    expect(rt.callsOf("stopContainer")).toEqual([]);
    const app = containerStatus(second.agent, "app")!;
    expect(app.state?.running).toBeDefined();
    expect(app.restartCount).toBe(0);
    expect(statusOf(second.agent).phase).toBe("Running");
    await second.stop();
  });
});

describe("Agent: a start cut short", () => {
  test.each([
    ["died during StartContainer (containerd marks it StartError, context canceled)", true],
    ["stopped between CreateContainer and StartContainer (left created)", false],
  ])("an agent that %s: the next agent replaces the instance without counting a restart", async (_what, aborted) => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const release = rt.hold("startContainer");
    const first = await startAgent(rt, clock);
    first.config.apply(fromFile(pod({ restartPolicy: "Never" })));
    await clock.advance(0);
    await flushMicrotasks();
    const [cut] = rt.containersNamed("app");
    expect(cut?.state).toBe("CONTAINER_CREATED");
    // The agent goes away mid-start; its held call never completes on the runtime's side.
    const stopping = first.stop();
    await clock.advance(SHUTDOWN_GRACE_MS);
    await stopping;
    if (aborted) rt.abortStart(cut!.id);
    release();
    rt.failNext.set("startContainer", [new Error("late answer to a caller that is gone")]);
    await flushMicrotasks();

    const second = await startAgent(rt, clock, { before: fromFile(pod({ restartPolicy: "Never" })) });
    await clock.advance(1000);
    await second.settle();
    const app = containerStatus(second.agent, "app")!;
    expect(app.state?.running).toBeDefined();
    expect(app.restartCount).toBe(0);
    expect(app.lastState).toBeUndefined();
    expect(statusOf(second.agent).phase).toBe("Running");
    expect(rt.containers.has(cut!.id)).toBe(false);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    await second.stop();
  });
});

describe("Agent: health", () => {
  test("healthChecks reports the sync loop once it ran, and again when it has stopped for over 2 minutes", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock);
    const check = (name: string) => a.agent.healthChecks().find((c) => c.name === name);
    expect(check("syncloop")).toEqual({ name: "syncloop", ok: false, message: "sync loop has not run yet" });
    expect(check("PLEG")?.ok).toBe(true); // the first relist ran when the agent started
    await clock.advance(1000);
    expect(check("syncloop")).toEqual({ name: "syncloop", ok: true, message: "ok" });
    await a.stop();
    await clock.advance(121_000);
    expect(check("syncloop")).toEqual({ name: "syncloop", ok: false, message: "sync loop last ran 121s ago" });
    expect(check("PLEG")?.ok).toBe(true);
  });
});

/** The pod with an exec probe of the given type on its app container, probing every second. */
