// The Agent end to end on a fake runtime: emptyDir sizeLimit eviction, evicted pods starting again, terminatePod.
// PodConfig updates, the generic PLEG's relists, the 1 s sync tick and the 2 s housekeeping drive real
// pod workers and a real PodSyncer, whose CRI calls land in the in-memory FakeRuntime; time moves only
// when the FakeClock is advanced (agent-harness.ts).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import type { EvictionLoop } from "../../src/agent/agent";
import type { EvictionTarget } from "../../src/eviction/local-storage";
import type { PressureCondition } from "../../src/eviction/signals";
import { FakeRecorder } from "../fakes/events";
import { EvictionAdmitHandler } from "../../src/eviction/eviction-admit-handler";
import type { SourceReport } from "../../src/config";
import { FakeClock } from "../../src/util/clock";
import { FakeRuntime } from "../fakes/runtime";
import { FakeDiskUsage } from "../fakes/disk-usage";
import { FakeStatusManager } from "../fakes/seams";
import { agentRoot, created, fromFile, named, startAgentIn, statusOf, type RunningAgent } from "./agent-harness";

const root = agentRoot();
const startAgent = (rt: FakeRuntime, clock: FakeClock, opts: Parameters<typeof startAgentIn>[3] = {}): Promise<RunningAgent> =>
  startAgentIn(root, rt, clock, opts);

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
    expect(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))).toEqual({
      "uid-hog": { reason: "Evicted", message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ' },
    });

    const b = await startAgent(rt, clock, { stateDir, diskUsage: new FakeDiskUsage(), before: fromFile(withScratch("hog")) });
    await clock.advance(60_000);
    await b.settle();
    expect(statusOf(b.agent, "hog")).toMatchObject({
      phase: "Failed",
      reason: "Evicted",
      message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
    });
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
    const going = {
      ...withScratch("going"),
      metadata: { ...withScratch("going").metadata, deletionTimestamp: "2026-11-21T10:00:00Z", deletionGracePeriodSeconds: 30 },
    };
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
    expect(JSON.parse(readFileSync(join(stateDir, "evicted-pods.json"), "utf8"))["uid-hog"]).toEqual({
      reason: "Evicted",
      message: "The node was low on resource: memory. ",
      condition: "MemoryPressure",
    });

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
    const done = a.agent
      .terminatePod(web, { reason: "Terminated", message: "Pod was terminated in response to imminent node shutdown." }, 6)
      .then((v) => (resolved = v));
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
