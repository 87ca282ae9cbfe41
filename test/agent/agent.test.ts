// The Agent's sync loop end to end on a fake runtime: PodConfig updates, the generic PLEG's relists,
// the 1 s sync tick and the 2 s housekeeping drive real pod workers and a real PodSyncer, whose CRI
// calls land in the in-memory FakeRuntime. Time moves only when the FakeClock is advanced.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, PodStatus as ApiPodStatus } from "kubernetes-types/core/v1";
import { Agent, SHUTDOWN_GRACE_MS, type AgentHooks, type AgentOptions, type EvictionLoop } from "../../src/agent/agent";
import type { EvictionTarget } from "../../src/eviction/local-storage";
import type { PressureCondition } from "../../src/eviction/signals";
import { FakeRecorder } from "../fakes/events";
import { EvictionAdmitHandler } from "../../src/eviction/eviction-admit-handler";
import { PodConfig, type SourceReport } from "../../src/config";
import type { ContainerConfigInput } from "../../src/cri/types";
import type { PodSourceName } from "../../src/manifest/types";
import { Pleg } from "../../src/pleg/pleg";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { grpcStatusError } from "../fakes/grpc";
import { FakeRuntime } from "../fakes/runtime";
import { FakeDiskUsage } from "../fakes/disk-usage";
import { FakeProber, FakeSource, FakeStatusManager } from "../fakes/seams";
import { runAgent, pod } from "./fixtures";

const root = mkdtempSync(join(tmpdir(), "nodeagent-agent-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface RunningAgent {
  agent: Agent;
  config: PodConfig;
  pleg: Pleg;
  /** Runs due timers and lets every sync, relist and event that follows finish. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts an agent on the runtime. `before` feeds PodConfig before the sync loop starts, as a source
 * that has its pods the moment it starts does (pushed pods kept across a restart).
 */
async function startAgent(rt: FakeRuntime, clock: FakeClock, opts: { sources?: PodSourceName[]; before?: SourceReport; hooks?: AgentHooks; stateDir?: string; statusManager?: FakeStatusManager; runtimeName?: string; prober?: AgentOptions["prober"]; diskUsage?: AgentOptions["diskUsage"]; containerGC?: boolean; evictionManager?: AgentOptions["evictionManager"]; events?: AgentOptions["events"]; admitHandlers?: AgentOptions["admitHandlers"] } = {}): Promise<RunningAgent> {
  const log = createLogger("text", -1);
  const pleg = new Pleg(rt, clock, { mode: "generic" });
  const config = new PodConfig({ clock, log });
  if (opts.before) config.apply(opts.before);
  const agent = new Agent({
    runtime: rt,
    pleg,
    config,
    sources: (opts.sources ?? ["file"]).map((n) => new FakeSource(n)),
    statusManager: opts.statusManager,
    random: () => 0,
    clock,
    log,
    runtimeConfig: { podLogsRoot: join(root, "logs"), podsDir: join(root, "pods"), cgroupRoot: "nodeagent-unit-test", nodeName: "node-a", hostIP: "192.0.2.10" },
    node: async () => ({}),
    hooks: opts.hooks,
    stateDir: opts.stateDir,
    runtimeName: opts.runtimeName,
    prober: opts.prober,
    diskUsage: opts.diskUsage,
    ...(opts.containerGC ? { containerGC: { runtime: rt } } : {}),
    ...(opts.evictionManager ? { evictionManager: opts.evictionManager } : {}),
    ...(opts.events ? { events: opts.events } : {}),
    ...(opts.admitHandlers ? { admitHandlers: opts.admitHandlers } : {}),
  });
  const { settle, stop } = runAgent(agent, clock);
  await settle();
  return { agent, config, pleg, settle, stop };
}

const fromFile = (...pods: Pod[]): SourceReport => ({ source: "file", pods, errors: [] });

/** The names of the containers the agent asked the runtime to create, in order. */
function created(rt: FakeRuntime): string[] {
  return (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((a) => a.config.metadata?.name ?? "");
}

function statusOf(agent: Agent, name = "web"): ApiPodStatus {
  const p = agent.pods().find((x) => x.metadata?.name === name);
  if (!p?.status) throw new Error(`the agent has no pod ${name}`);
  return p.status;
}

function containerStatus(agent: Agent, name: string) {
  const s = statusOf(agent);
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].find((c) => c.name === name);
}

function withCommand(p: Pod, command: string): Pod {
  const copy = structuredClone(p);
  copy.spec!.containers[0]!.command = ["sh", "-c", command];
  return copy;
}

describe("Agent: pods from PodConfig", () => {
  test("container IDs in the status carry the runtime's name given at start, containerd by default", async () => {
    for (const [runtimeName, prefix] of [[undefined, "containerd://"], ["cri-o", "cri-o://"]] as const) {
      const clock = new FakeClock();
      const rt = new FakeRuntime(clock);
      const a = await startAgent(rt, clock, { runtimeName });
      a.config.apply(fromFile(pod()));
      await a.settle();
      const id = rt.containersNamed("app")[0]!.id;
      expect(containerStatus(a.agent, "app")?.containerID).toBe(`${prefix}${id}`);
      await a.stop();
    }
  });

  test("a new pod gets one sandbox; init containers run one at a time, in order, before the app containers", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.exitOnStart.set("init-b", 0);
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(pod({ inits: ["init-a", "init-b"], containers: ["app", "sidecar"] })));
    await a.settle();
    // init-a runs; init-b must not start until it has succeeded.
    expect(created(rt)).toEqual(["init-a"]);
    expect(statusOf(a.agent).phase).toBe("Pending");
    expect(containerStatus(a.agent, "init-a")?.state?.running).toBeDefined();
    expect(containerStatus(a.agent, "app")?.state?.waiting?.reason).toBe("ContainerCreating");

    rt.exit(rt.containersNamed("init-a")[0]!.id, 0);
    await clock.advance(1000); // the next relist sees it succeed
    await a.settle();
    expect(created(rt)).toEqual(["init-a", "init-b", "app", "sidecar"]);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    expect(rt.sandboxes.size).toBe(1);
    const s = statusOf(a.agent);
    expect(s.phase).toBe("Running");
    expect(s.conditions?.find((c) => c.type === "Initialized")?.status).toBe("True");
    expect(s.containerStatuses?.map((c) => [c.name, !!c.state?.running, c.restartCount])).toEqual([["app", true, 0], ["sidecar", true, 0]]);
    expect(s.initContainerStatuses?.map((c) => [c.name, c.state?.terminated?.reason])).toEqual([["init-a", "Completed"], ["init-b", "Completed"]]);
    // Nothing more happens while nothing changes.
    await clock.advance(10_000);
    expect(created(rt)).toHaveLength(4);
    await a.stop();
  });

  test("a new sandbox removes the old init containers with their log files (the kubelet's removeContainer), nothing else", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    rt.exitOnStart.set("init", 0);
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(pod({ inits: ["init"] })));
    await a.settle();
    expect(created(rt)).toEqual(["init", "app"]);
    // The runtime's log files of both containers, under the pod's log folder.
    const dir = join(root, "logs", "default_web_uid-1");
    const initLog = join(dir, "init", "0.log");
    const appLog = join(dir, "app", "0.log");
    for (const [name, file] of [["init", initLog], ["app", appLog]] as const) {
      writeFileSync(file, "output\n");
      rt.logPaths.set(rt.containersNamed(name)[0]!.id, file);
    }
    writeFileSync(`${initLog}.20260101-000000.gz`, "");
    // The sandbox dies: a new one, whose init must run again; the old init instance goes first.
    rt.stopSandbox([...rt.sandboxes.keys()][0]!);
    await clock.advance(1000);
    await a.settle();
    expect(created(rt)).toEqual(["init", "app", "init", "app"]);
    expect(existsSync(initLog)).toBe(false);
    expect(existsSync(`${initLog}.20260101-000000.gz`)).toBe(false);
    // The dead app instance is the container GC's to weigh: it and its log stay.
    expect(existsSync(appLog)).toBe(true);
    await a.stop();
  });

  test("UPDATEs to a busy pod are coalesced into one more sync with the newest spec, never lost", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock);
    const v1 = pod();
    const release = rt.hold("createContainer");
    a.config.apply(fromFile(v1));
    await clock.advance(0);
    expect(rt.callsOf("createContainer")).toHaveLength(1); // the first sync is stuck in CreateContainer
    expect(a.config.apply(fromFile(withCommand(v1, "sleep 2"))).map((u) => u.op)).toEqual(["UPDATE"]);
    expect(a.config.apply(fromFile(withCommand(v1, "sleep 3"))).map((u) => u.op)).toEqual(["UPDATE"]);
    await clock.advance(0);
    expect(rt.callsOf("createContainer")).toHaveLength(1);
    release();
    await a.settle();
    // The "sleep 2" spec was never acted on; the "sleep 3" one replaced the first container.
    const commands = (rt.callsOf("createContainer") as { config: ContainerConfigInput }[]).map((c) => c.config.command);
    expect(commands).toEqual([["sh", "-c", "sleep 1000"], ["sh", "-c", "sleep 3"]]);
    const running = [...rt.containers.values()].filter((c) => c.state === "CONTAINER_RUNNING");
    expect(running.map((c) => c.command)).toEqual([["sh", "-c", "sleep 3"]]);
    expect(a.agent.pods()[0]!.spec!.containers[0]!.command).toEqual(["sh", "-c", "sleep 3"]);
    expect(rt.sandboxes.size).toBe(1);
    await a.stop();
  });

  test("REMOVE stops the containers with the pod's grace period, then removes them, the sandbox and the log folder: nothing is left", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const removed: string[] = [];
    const a = await startAgent(rt, clock, { hooks: { podRemoved: (p) => removed.push(p.metadata!.uid!) } });
    const p = pod({ containers: ["app", "sidecar"] });
    p.spec!.terminationGracePeriodSeconds = 5;
    a.config.apply(fromFile(p));
    await a.settle();
    expect(statusOf(a.agent).phase).toBe("Running");
    const ids = [...rt.containers.keys()];
    // Its log folder, and another pod's (same name, another UID) that must stay.
    const logDir = join(root, "logs", "default_web_uid-1");
    const otherLogDir = join(root, "logs", "default_web_uid-10");
    expect(existsSync(join(logDir, "app"))).toBe(true);
    mkdirSync(otherLogDir, { recursive: true });

    expect(a.config.apply(fromFile()).map((u) => u.op)).toEqual(["REMOVE"]);
    await a.settle();
    expect(existsSync(logDir)).toBe(false);
    expect(existsSync(otherLogDir)).toBe(true);
    expect(rt.sandboxes.size).toBe(0);
    expect(rt.containers.size).toBe(0);
    // In parallel, as the kubelet's killContainersWithSyncResult: in no particular order.
    expect(rt.callsOf("stopContainer")).toEqual(expect.arrayContaining(ids.map((id) => ({ id, timeoutSeconds: 5 }))));
    expect(rt.callsOf("stopContainer")).toHaveLength(2);
    // Stopped before removed (the fake, as containerd, refuses to remove a running container).
    const order = rt.calls.map((c) => c.method).filter((m) => /^(stop|remove)/.test(m));
    expect(order.lastIndexOf("stopContainer")).toBeLessThan(order.indexOf("removeContainer"));
    expect(a.agent.pods()).toEqual([]);
    expect(removed).toEqual(["uid-1"]);
    // And it stays gone: no sync recreates it.
    await clock.advance(5000);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    await a.stop();
  });
});

/** A runtime whose RunPodSandbox calls each wait until the test lets that pod's sandbox be made. */
class HeldSandboxes extends FakeRuntime {
  private readonly gates = new Map<string, () => void>();
  /** Pod names whose RunPodSandbox is in flight, in the order they were asked for. */
  readonly asked: string[] = [];
  override async runPodSandbox(config: Parameters<FakeRuntime["runPodSandbox"]>[0], handler = ""): Promise<string> {
    const name = config.metadata?.name ?? "";
    this.asked.push(name);
    await new Promise<void>((r) => this.gates.set(name, r));
    return super.runPodSandbox(config, handler);
  }
  make(name: string): void {
    this.gates.get(name)!();
  }
}

const named = (name: string, opts: Parameters<typeof pod>[0] = {}): Pod => {
  const p = pod(opts);
  p.metadata = { ...p.metadata, name, uid: `uid-${name}` };
  return p;
};

describe("Agent: a burst of new pods", () => {
  const IMAGE = "localhost/nodeagent/busybox:1.35";
  /** Workers wait on held calls, so the agent is never idle: let everything else run instead. */
  const churn = async (clock: FakeClock) => {
    for (let i = 0; i < 10; i++) {
      await clock.advance(0);
      await flushMicrotasks();
    }
  };

  test("the first pod starts alone; its containers start, init first, as soon as its own sandbox is ready; then two, then four at once", async () => {
    const clock = new FakeClock();
    const rt = new HeldSandboxes(clock);
    rt.addImage(IMAGE);
    const a = await startAgent(rt, clock);
    const names = ["p1", "p2", "p3", "p4", "p5", "p6"];
    a.config.apply(fromFile(...names.map((n) => named(n, { inits: ["init"], containers: ["app", "sidecar"] }))));
    await churn(clock);
    expect(rt.asked).toEqual(["p1"]);
    rt.exitOnStart.set("init", 0);

    rt.make("p1");
    await churn(clock);
    // p1's init container runs (and exits at once), then its app containers start, in order, while
    // the next two pods (p1 has started: two at once now) wait for their sandboxes.
    expect(rt.asked).toEqual(["p1", "p2", "p3"]);
    expect(created(rt)).toEqual(["init", "app", "sidecar"]);
    expect(statusOf(a.agent, "p1").phase).toBe("Running");
    expect(statusOf(a.agent, "p4").containerStatuses?.every((c) => c.state?.waiting?.reason === "ContainerCreating")).toBe(true);

    rt.make("p3");
    await churn(clock);
    // Two started: four at once (p2, p4, p5, p6); p3 has gone on to its containers.
    expect(rt.asked).toEqual(["p1", "p2", "p3", "p4", "p5", "p6"]);
    for (const n of ["p2", "p4", "p5", "p6"]) rt.make(n);
    await a.settle();
    await clock.advance(1000);
    await a.settle();
    for (const n of names) expect(statusOf(a.agent, n).phase).toBe("Running");
    // One sandbox per pod, and each container started once.
    expect(rt.callsOf("runPodSandbox")).toHaveLength(6);
    expect(created(rt)).toHaveLength(18);
    await a.stop();
  });

  test("a pod holds its place until its containers have started, and gives it back before pulling an image", async () => {
    const clock = new FakeClock();
    const rt = new HeldSandboxes(clock);
    rt.addImage(IMAGE);
    const a = await startAgent(rt, clock);
    a.config.apply(fromFile(named("p0"), named("p1")));
    await churn(clock);
    const starting = rt.hold("startContainer");
    rt.make("p0");
    await churn(clock);
    // p0's StartContainer is in flight: its place is still held, p1 may not start yet.
    expect(rt.callsOf("startContainer")).toHaveLength(1);
    expect(rt.asked).toEqual(["p0"]);
    starting();
    await churn(clock);
    expect(rt.asked).toEqual(["p0", "p1"]);
    rt.make("p1");
    await a.settle();

    // A new burst, whose first pod needs an image pulled: it waits for the image without its place.
    const pulled = named("p2");
    pulled.spec!.containers[0]!.image = "localhost/other:1";
    a.config.apply(fromFile(named("p0"), named("p1"), pulled, named("p3")));
    await churn(clock);
    expect(rt.asked).toEqual(["p0", "p1", "p2"]);
    const pulling = rt.hold("pullImage");
    rt.make("p2");
    await churn(clock);
    expect(rt.callsOf("pullImage")).toEqual(["localhost/other:1"]);
    expect(rt.asked).toEqual(["p0", "p1", "p2", "p3"]);
    rt.make("p3");
    await churn(clock);
    expect(statusOf(a.agent, "p3").phase).toBe("Running");
    expect(statusOf(a.agent, "p2").phase).toBe("Pending");
    pulling();
    await a.settle();
    expect(statusOf(a.agent, "p2").phase).toBe("Running");
    await a.stop();
  });
});

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
function probed(type: "livenessProbe" | "readinessProbe", extra: { failureThreshold?: number; restartPolicy?: "Always" | "Never" } = {}): Pod {
  const p = pod({ restartPolicy: extra.restartPolicy });
  p.spec!.containers[0]![type] = { exec: { command: ["check"] }, periodSeconds: 1, failureThreshold: extra.failureThreshold ?? 3 };
  return p;
}

const readyCondition = (a: RunningAgent) => statusOf(a.agent).conditions?.find((c) => c.type === "Ready")?.status;

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
      syncPod() {}, stopLivenessAndStartup() {}, removePod() {}, cleanupPods() {}, result: () => undefined,
      readiness: () => ready, started: () => true, stop: async () => {},
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
    expect(statusOf(a.agent).containerStatuses?.[0]?.lastState?.terminated?.exitCode ?? statusOf(a.agent).containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(1);
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

  for (const [was, probeNow] of [[true, 1], [false, 0]] as const) {
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
      const second = await startAgent(rt, clock, { stateDir, before: fromFile(probed("readinessProbe", { failureThreshold: 1 })) });
      await second.settle();
      expect(containerStatus(second.agent, "app")!.ready).toBe(was);
      expect(readyCondition(second)).toBe(was ? "True" : "False");
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
  const deleting = (p: Pod, grace: number): Pod => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: "2026-11-21T10:00:00Z", deletionGracePeriodSeconds: grace } });

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

describe("Agent: emptyDir sizeLimit (the eviction manager's local-storage eviction)", () => {
  const fromApi = (...pods: Pod[]): SourceReport => ({ source: "api", pods, errors: [] });
  const withScratch = (name: string): Pod => {
    const p = named(name);
    p.spec = { ...p.spec!, terminationGracePeriodSeconds: 30, volumes: [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }] };
    return p;
  };
  const scratchDir = (uid: string) => join(root, "pods", uid, "volumes", "kubernetes.io~empty-dir", "scratch");

  test("a pod over its limit is killed at once, reported Failed/Evicted, never restarted, and kept until its source deletes it; a sibling within its limit runs on", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const sm = new FakeStatusManager();
    const usage = new FakeDiskUsage();
    const a = await startAgent(rt, clock, { sources: ["api"], statusManager: sm, diskUsage: usage });
    a.config.apply(fromApi(withScratch("hog"), withScratch("tidy")));
    await a.settle();
    expect(statusOf(a.agent, "hog").phase).toBe("Running");
    usage.table.set(scratchDir("uid-hog"), 2 * 1024 * 1024);
    usage.table.set(scratchDir("uid-tidy"), 512 * 1024);
    await clock.advance(10_000);
    await a.settle();
    const hog = statusOf(a.agent, "hog");
    expect(hog).toMatchObject({ phase: "Failed", reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
    expect(hog.containerStatuses![0]!.state!.terminated).toBeDefined();
    // Grace 0, raised to the runtime's 2 s minimum — not the spec's 30 s.
    expect(rt.callsOf("stopContainer")).toEqual([expect.objectContaining({ timeoutSeconds: 2 })]);
    expect(sm.terminated).toEqual(["hog"]);
    expect(sm.set.filter((x) => x.name === "hog").at(-1)!.phase).toBe("Failed");
    expect(statusOf(a.agent, "tidy").phase).toBe("Running");
    // Never restarted, never evicted again, whatever the resyncs and later checks.
    await clock.advance(120_000);
    await a.settle();
    expect(created(rt)).toEqual(["app", "app"]);
    expect(rt.callsOf("stopContainer")).toHaveLength(1);
    expect(statusOf(a.agent, "hog").reason).toBe("Evicted");
    // Its source deletes it: removed.
    a.config.apply(fromApi(withScratch("tidy")));
    await a.settle();
    expect(a.agent.pods().map((p) => p.metadata!.name)).toEqual(["tidy"]);
    await a.stop();
  });

  test("a static pod evicted before a restart is not started again by the next agent; its record goes when its source drops it", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const stateDir = mkdtempSync(join(root, "state-"));
    const usage = new FakeDiskUsage();
    const a = await startAgent(rt, clock, { stateDir, diskUsage: usage });
    a.config.apply(fromFile(withScratch("hog")));
    await a.settle();
    usage.table.set(scratchDir("uid-hog"), 2 * 1024 * 1024);
    await clock.advance(10_000);
    await a.settle();
    expect(statusOf(a.agent, "hog").reason).toBe("Evicted");
    await a.stop();
    expect(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))).toEqual({ "uid-hog": { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' } });

    const b = await startAgent(rt, clock, { stateDir, diskUsage: new FakeDiskUsage(), before: fromFile(withScratch("hog")) });
    await clock.advance(60_000);
    await b.settle();
    expect(statusOf(b.agent, "hog")).toMatchObject({ phase: "Failed", reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' });
    expect(created(rt)).toEqual(["app"]);
    b.config.apply(fromFile());
    await b.settle();
    expect(b.agent.pods()).toEqual([]);
    expect(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))).toEqual({});
    await b.stop();
  });

  test("the active pods are the eviction manager's candidates: not a pod being deleted", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const a = await startAgent(rt, clock, { sources: ["api"], diskUsage: new FakeDiskUsage() });
    const going = { ...withScratch("going"), metadata: { ...withScratch("going").metadata, deletionTimestamp: "2026-11-21T10:00:00Z", deletionGracePeriodSeconds: 30 } };
    a.config.apply(fromApi(withScratch("hog"), going));
    await a.settle();
    expect(a.agent.activePods().map((p) => p.metadata!.name)).toEqual(["hog"]);
    await a.stop();
  });
});

/** An eviction manager the test drives: the pressure it reports, and the agent's side to evict through. */
class FakePressureLoop implements EvictionLoop {
  pressure: Set<PressureCondition> | undefined;
  target!: EvictionTarget;
  readonly make = (target: EvictionTarget): EvictionLoop => {
    this.target = target;
    return this;
  };
  run(signal: AbortSignal): Promise<void> {
    return new Promise((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
  }
  observedPressure(): ReadonlySet<PressureCondition> | undefined {
    return this.pressure;
  }
  /** Evicts the named active pod as the eviction manager does for memory. */
  evictForMemory(name: string): boolean {
    const p = this.target.activePods().find((x) => x.metadata?.name === name)!;
    return this.target.evictPod(p, { reason: "Evicted", message: "The node was low on resource: memory. ", condition: "MemoryPressure" }, 0);
  }
}

describe("Agent: a pod evicted for node pressure starts again once it is gone (file, URL and pushed pods)", () => {
  test("a static pod evicted for MemoryPressure stays Failed while the pressure lasts, then starts again with a Normal EvictionRecovered event", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const loop = new FakePressureLoop();
    const events = new FakeRecorder();
    const a = await startAgent(rt, clock, { evictionManager: loop.make, events });
    a.config.apply(fromFile(named("hog"), named("keep")));
    await a.settle();
    loop.pressure = new Set(["MemoryPressure"]);
    expect(loop.evictForMemory("hog")).toBe(true);
    await clock.advance(10_000);
    await a.settle();
    expect(statusOf(a.agent, "hog")).toMatchObject({ phase: "Failed", reason: "Evicted" });
    // Another pressure going does not count; nor does "not measured yet" (after a start).
    loop.pressure = new Set(["DiskPressure", "MemoryPressure"]);
    await clock.advance(10_000);
    await a.settle();
    loop.pressure = undefined;
    await clock.advance(10_000);
    await a.settle();
    expect(statusOf(a.agent, "hog").phase).toBe("Failed");
    expect(created(rt)).toEqual(["app", "app"]);
    // The condition is gone: the next housekeeping starts it afresh.
    loop.pressure = new Set();
    await clock.advance(2_000);
    await a.settle();
    await clock.advance(1_000);
    await a.settle();
    expect(statusOf(a.agent, "hog").phase).toBe("Running");
    expect(statusOf(a.agent, "hog").reason).toBeUndefined();
    expect(created(rt)).toEqual(["app", "app", "app"]);
    expect(events.lines().filter((l) => l.includes("Evict"))).toEqual([
      "Warning Evicted: The node was low on resource: memory. ",
      "Normal EvictionRecovered: The node is no longer under memory pressure; the pod is started again",
    ]);
    expect(events.events.at(-1)!.ref.name).toBe("hog");
    // It may be evicted again, and come back again.
    loop.pressure = new Set(["MemoryPressure"]);
    expect(loop.evictForMemory("hog")).toBe(true);
    await a.settle();
    expect(statusOf(a.agent, "hog").phase).toBe("Failed");
    await a.stop();
  });

  test("its pressure gone but another one there: admission (the eviction admit handler) keeps it Failed until that one goes too", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const loop = new FakePressureLoop();
    const a = await startAgent(rt, clock, { evictionManager: loop.make, admitHandlers: [new EvictionAdmitHandler(() => loop.pressure ?? new Set())] });
    a.config.apply(fromFile(named("hog")));
    await a.settle();
    loop.pressure = new Set(["MemoryPressure"]);
    expect(loop.evictForMemory("hog")).toBe(true);
    await a.settle();
    loop.pressure = new Set(["DiskPressure"]);
    await clock.advance(10_000);
    await a.settle();
    expect(statusOf(a.agent, "hog")).toMatchObject({ phase: "Failed", reason: "Evicted" });
    loop.pressure = new Set();
    await clock.advance(2_000);
    await a.settle();
    await clock.advance(1_000);
    await a.settle();
    expect(statusOf(a.agent, "hog").phase).toBe("Running");
    await a.stop();
  });

  test("after a restart with no pressure observed, the recorded eviction is undone; an API pod, a sizeLimit eviction stay Failed", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const stateDir = mkdtempSync(join(root, "state-"));
    const loop = new FakePressureLoop();
    const a = await startAgent(rt, clock, { sources: ["file", "api"], stateDir, evictionManager: loop.make });
    a.config.apply(fromFile(named("hog"), named("full")));
    a.config.apply({ source: "api", pods: [named("api")], errors: [] });
    await a.settle();
    loop.pressure = new Set(["MemoryPressure"]);
    expect(loop.evictForMemory("hog")).toBe(true);
    expect(loop.evictForMemory("api")).toBe(true);
    const full = loop.target.activePods().find((x) => x.metadata?.name === "full")!;
    expect(loop.target.evictPod(full, { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' }, 0)).toBe(true);
    await a.settle();
    await a.stop();
    expect(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))["uid-hog"]).toEqual({ reason: "Evicted", message: "The node was low on resource: memory. ", condition: "MemoryPressure" });

    const next = new FakePressureLoop();
    const b = await startAgent(rt, clock, { sources: ["file", "api"], stateDir, evictionManager: next.make, before: fromFile(named("hog"), named("full")) });
    b.config.apply({ source: "api", pods: [named("api")], errors: [] });
    await b.settle();
    // Until the eviction manager has measured the node, the pod stays as it was left.
    await clock.advance(10_000);
    await b.settle();
    expect(statusOf(b.agent, "hog").phase).toBe("Failed");
    next.pressure = new Set();
    await clock.advance(2_000);
    await b.settle();
    await clock.advance(1_000);
    await b.settle();
    expect(statusOf(b.agent, "hog").phase).toBe("Running");
    expect(statusOf(b.agent, "full")).toMatchObject({ phase: "Failed", reason: "Evicted" });
    expect(statusOf(b.agent, "api")).toMatchObject({ phase: "Failed", reason: "Evicted" });
    expect(Object.keys(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))).sort()).toEqual(["uid-api", "uid-full"]);
    await b.stop();
  });
});

describe("Agent: terminatePod (graceful node shutdown)", () => {
  const withGrace = (name: string): Pod => {
    const p = named(name);
    p.spec = { ...p.spec!, terminationGracePeriodSeconds: 30 };
    return p;
  };

  test("stops the pod within the given grace period and resolves once it has terminated; Failed with the shutdown's reason; not remembered across a restart", async () => {
    const clock = new FakeClock();
    const rt = new FakeRuntime(clock);
    const sm = new FakeStatusManager();
    const stateDir = mkdtempSync(join(root, "state-"));
    const a = await startAgent(rt, clock, { statusManager: sm, stateDir });
    a.config.apply(fromFile(withGrace("web")));
    await a.settle();
    const web = a.agent.activePods().find((p) => p.metadata?.name === "web")!;
    let resolved: boolean | undefined;
    const done = a.agent.terminatePod(web, { reason: "Terminated", message: "Pod was terminated in response to imminent node shutdown." }, 6).then((v) => (resolved = v));
    expect(resolved).toBeUndefined();
    await a.settle();
    await done;
    expect(resolved).toBe(true);
    expect(rt.callsOf("stopContainer")).toEqual([expect.objectContaining({ timeoutSeconds: 6 })]);
    expect(statusOf(a.agent)).toMatchObject({ phase: "Failed", reason: "Terminated", message: "Pod was terminated in response to imminent node shutdown." });
    expect(sm.terminated).toEqual(["web"]);
    // Asked again: not running any more.
    expect(await a.agent.terminatePod(web, { reason: "Terminated", message: "again" }, 6)).toBe(false);
    await clock.advance(120_000);
    await a.settle();
    expect(created(rt)).toEqual(["app"]);
    await a.stop();
    // Not an eviction: nothing recorded, so the next start (the node back up) runs the static pod again.
    expect(existsSync(join(stateDir, "evicted-pods.json"))).toBe(false);
    const b = await startAgent(rt, clock, { stateDir, before: fromFile(withGrace("web")) });
    await clock.advance(10_000);
    await b.settle();
    expect(statusOf(b.agent).phase).toBe("Running");
    expect(created(rt)).toEqual(["app", "app"]);
    await b.stop();
  });
});
