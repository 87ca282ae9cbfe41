// The Agent's sync loop end to end on a fake runtime: pods from PodConfig and a burst of new pods.
// PodConfig updates, the generic PLEG's relists, the 1 s sync tick and the 2 s housekeeping drive real
// pod workers and a real PodSyncer, whose CRI calls land in the in-memory FakeRuntime; time moves only
// when the FakeClock is advanced (agent-harness.ts).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerConfigInput } from "../../src/cri/types";
import { FakeClock, flushMicrotasks } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";
import { pod } from "./fixtures";
import { agentRoot, containerStatus, created, fromFile, named, startAgentIn, statusOf, withCommand, type RunningAgent } from "./agent-harness";

const root = agentRoot();
const startAgent = (rt: FakeRuntime, clock: FakeClock, opts: Parameters<typeof startAgentIn>[3] = {}): Promise<RunningAgent> =>
  startAgentIn(root, rt, clock, opts);

describe("Agent: pods from PodConfig", () => {
  test("container IDs in the status carry the runtime's name given at start, containerd by default", async () => {
    for (const [runtimeName, prefix] of [
      [undefined, "containerd://"],
      ["cri-o", "cri-o://"],
    ] as const) {
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
    expect(containerStatus(a.agent, "app")?.state?.waiting?.reason).toBe("PodInitializing");

    rt.exit(rt.containersNamed("init-a")[0]!.id, 0);
    await clock.advance(1000); // the next relist sees it succeed
    await a.settle();
    expect(created(rt)).toEqual(["init-a", "init-b", "app", "sidecar"]);
    expect(rt.callsOf("runPodSandbox")).toHaveLength(1);
    expect(rt.sandboxes.size).toBe(1);
    const s = statusOf(a.agent);
    expect(s.phase).toBe("Running");
    expect(s.conditions?.find((c) => c.type === "Initialized")?.status).toBe("True");
    expect(s.containerStatuses?.map((c) => [c.name, !!c.state?.running, c.restartCount])).toEqual([
      ["app", true, 0],
      ["sidecar", true, 0],
    ]);
    expect(s.initContainerStatuses?.map((c) => [c.name, c.state?.terminated?.reason])).toEqual([
      ["init-a", "Completed"],
      ["init-b", "Completed"],
    ]);
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
    for (const [name, file] of [
      ["init", initLog],
      ["app", appLog],
    ] as const) {
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
    expect(commands).toEqual([
      ["sh", "-c", "sleep 1000"],
      ["sh", "-c", "sleep 3"],
    ]);
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
    expect(statusOf(a.agent, "p4").containerStatuses?.every((c) => c.state?.waiting?.reason === "PodInitializing")).toBe(true);

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
