// The sync loop through the agent's seams, each a fake: a source the test reports through, a PLEG
// whose cache and events the test sets, pod workers that only record, a prober whose updates the test
// sends. Time moves only with the FakeClock. Each event kind of syncLoopIteration is driven here.
import { describe, expect, test } from "bun:test";
import type { Node, Pod } from "kubernetes-types/core/v1";
import { CriticalPodAdmissionHandler, PredicateAdmitHandler, type PodAdmitHandler } from "../../src/admission";
import { Agent, NODE_WAIT_MS } from "../../src/agent/agent";
import { qosClass } from "../../src/status";
import { PodConfig } from "../../src/config/pod-config";
import type { PodSourceName } from "../../src/manifest/types";
import type { ProbeUpdate } from "../../src/prober/types";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { FakeRecorder } from "../fakes/events";
import { FakePleg, FakePodWorkers, FakeProber, FakeSource, FakeStatusManager } from "../fakes/seams";
import { runAgent, podStatus, pod as fixturePod } from "./fixtures";

function pod(uid: string, name = uid, extra: Partial<Pod["metadata"]> = {}): Pod {
  return { metadata: { name, namespace: "default", uid, ...extra }, spec: { containers: [{ name: "app", image: "busybox" }] } };
}

async function setup(
  opts: {
    sources?: PodSourceName[];
    maxPods?: number;
    node?: Node;
    buildNode?: () => Promise<Node>;
    admitHandlers?: (agent: () => Agent) => PodAdmitHandler[];
  } = {},
) {
  const clock = new FakeClock();
  const log = createLogger("text", -1);
  const pleg = new FakePleg(clock);
  const workers = new FakePodWorkers();
  const sources = (opts.sources ?? ["file"]).map((n) => new FakeSource(n));
  let prober!: FakeProber;
  const statusManager = new FakeStatusManager();
  const events = new FakeRecorder();
  const agent = new Agent({
    runtime: {} as never,
    pleg,
    config: new PodConfig({ clock, log }),
    sources,
    clock,
    log,
    runtimeConfig: { podLogsRoot: "/nonexistent", podsDir: "/nonexistent", cgroupRoot: "unit", nodeName: "n", hostIP: "192.0.2.1" },
    node: opts.buildNode ?? (async () => opts.node ?? {}),
    statusManager,
    admitHandlers: opts.admitHandlers
      ? opts.admitHandlers(() => agent)
      : opts.maxPods !== undefined
        ? [new PredicateAdmitHandler({ node: () => ({ metadata: { name: "n" }, status: { allocatable: { pods: String(opts.maxPods) } } }) })]
        : [],
    prober: (onUpdate) => (prober = new FakeProber(onUpdate)),
    podWorkers: () => workers,
    events,
  });
  const { settle, stop } = runAgent(agent, clock);
  await settle();
  return { clock, pleg, workers, sources, agent, prober, statusManager, events, settle, stop, file: sources[0]! };
}

describe("syncLoopIteration: config", () => {
  test("ADD creates, UPDATE updates, DELETE kills, REMOVE kills and removes, RECONCILE only reconciles", async () => {
    const t = await setup({ sources: ["api"] });
    const api = t.sources[0]!;
    expect(api.started).toBe(true);
    api.send([pod("a"), pod("b")]);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a", "create b"]);

    t.workers.calls.length = 0;
    const a2 = pod("a");
    a2.spec!.containers[0]!.image = "busybox:2";
    api.send([a2, { ...pod("b"), status: { phase: "Running" } }]);
    await t.settle();
    expect(t.workers.calls).toEqual(["update a", "reconcile b"]);

    t.workers.calls.length = 0;
    api.send([
      { ...a2, metadata: { ...a2.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", deletionGracePeriodSeconds: 5 } },
      { ...pod("b"), status: { phase: "Running" } },
    ]);
    await t.settle();
    expect(t.workers.calls).toEqual(["kill a"]);

    t.workers.calls.length = 0;
    api.send([]);
    await t.settle();
    expect(t.workers.calls).toEqual(["kill+remove a", "kill+remove b"]);
    await t.stop();
    expect(api.stopped).toBe(true);
  });

  test("ADD runs admission first: a pod over --max-pods is rejected with OutOfpods and never created", async () => {
    const t = await setup({ maxPods: 2 });
    t.file.send([pod("a"), pod("b"), pod("c")]);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a", "create b", "reject c OutOfpods"]);
    const rejected = t.agent.pods().find((p) => p.metadata?.uid === "c")!;
    // As the kubelet's rejectPod writes it: the refusal alone, no container statuses or conditions.
    expect(rejected.status).toEqual({
      phase: "Failed",
      reason: "OutOfpods",
      message: "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
      qosClass: "BestEffort",
    });
    await t.stop();
  });

  test("admission checks the Node the agent built before its sources started; a critical pod preempts through the pod workers", async () => {
    const node: Node = { metadata: { name: "n" }, status: { allocatable: { cpu: "1", memory: "1Gi", pods: "10" } } };
    const t = await setup({
      node,
      // As node.ts wires them: the Node from lastNode(), preemption through the agent's evictPod.
      admitHandlers: (agent) => [
        new PredicateAdmitHandler({
          node: () => agent().lastNode(),
          failureHandler: new CriticalPodAdmissionHandler({ target: { evictPod: (p, status, grace) => agent().evictPod(p, status, grace) }, qosClass }),
        }),
      ],
    });
    expect(t.agent.lastNode()).toBe(node);
    const cpu = (uid: string, request: string, priority?: number): Pod => {
      const p = pod(uid);
      p.spec!.containers[0]!.resources = { requests: { cpu: request } };
      if (priority !== undefined) p.spec!.priority = priority;
      p.spec!.terminationGracePeriodSeconds = 5;
      return p;
    };
    t.file.send([cpu("a", "600m"), cpu("b", "600m")]);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a", "reject b OutOfcpu"]);
    expect(t.agent.pods().find((p) => p.metadata?.uid === "b")!.status).toMatchObject({
      phase: "Failed",
      reason: "OutOfcpu",
      message: "Pod was rejected: Node didn't have enough resource: cpu, requested: 600, used: 600, capacity: 1000",
    });

    t.workers.calls.length = 0;
    t.file.send([cpu("a", "600m"), cpu("b", "600m"), cpu("crit", "600m", 2_000_000_000)]);
    await t.settle();
    expect(t.workers.calls).toEqual(["evict a Preempting grace=5", "create crit"]);
    expect(t.workers.get("a")!.failed).toEqual({ reason: "Preempting", message: "Preempted in order to admit critical pod" });
    // The kubelet's Warning events on the pods: the rejection with the handler's own message (rejectPod),
    // the preemption with its reason and message.
    expect(t.events.events.map((e) => `${e.ref.name} ${e.type} ${e.reason}: ${e.message}`)).toEqual([
      "b Warning OutOfcpu: Node didn't have enough resource: cpu, requested: 600, used: 600, capacity: 1000",
      "a Warning Preempting: Preempted in order to admit critical pod",
    ]);
    await t.stop();
  });

  test("the sync loop waits for the first Node before it admits anything; at most NODE_WAIT_MS, then pods are refused InvalidNodeInfo", async () => {
    let built!: (n: Node) => void;
    const node: Node = { metadata: { name: "n" }, status: { allocatable: { cpu: "1", pods: "10" } } };
    const admitting = (agent: () => Agent) => [new PredicateAdmitHandler({ node: () => agent().lastNode() })];
    const t = await setup({ buildNode: () => new Promise<Node>((r) => (built = r)), admitHandlers: admitting });
    t.file.send([pod("a")]);
    await t.clock.advance(1000);
    expect(t.workers.calls).toEqual([]);
    built(node);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a"]);
    await t.stop();

    // A Node that never comes: after NODE_WAIT_MS the loop runs, and admission has nothing to go by.
    const late = await setup({ buildNode: () => new Promise<Node>(() => {}), admitHandlers: admitting });
    late.file.send([pod("b")]);
    await late.clock.advance(NODE_WAIT_MS - 1);
    expect(late.workers.calls).toEqual([]);
    await late.clock.advance(1);
    await late.settle();
    expect(late.workers.calls).toEqual(["reject b InvalidNodeInfo"]);
    await late.stop();
  });

  test("a pod replacing another of the same name (an edited static pod) is not counted against its predecessor", async () => {
    const t = await setup({ maxPods: 1 });
    t.file.send([pod("a", "web")]);
    await t.settle();
    t.file.send([pod("a2", "web")]);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a", "kill+remove a", "create a2"]);
    await t.stop();
  });
});

describe("syncLoopIteration: PLEG, probes, the sync tick", () => {
  test("a PLEG event syncs the pod it names", async () => {
    const t = await setup();
    t.pleg.emit("ContainerDied", { uid: "a" });
    await t.settle();
    expect(t.workers.calls).toEqual(["sync a"]);
    await t.stop();
  });

  test("a liveness failure is noted as the container's kill reason, then the pod is synced", async () => {
    const t = await setup();
    t.file.send([pod("a")]);
    await t.settle();
    t.workers.calls.length = 0;
    const u: ProbeUpdate = {
      podUid: "a",
      namespace: "default",
      podName: "a",
      containerName: "app",
      containerId: "c1",
      probeType: "liveness",
      result: "failure",
      reason: "HTTP probe failed with statuscode: 500",
      message: "Liveness probe failed: HTTP probe failed with statuscode: 500",
      time: t.clock.now(),
    };
    t.prober.sendUpdate(u);
    await t.settle();
    expect(t.workers.calls).toEqual(["sync a"]);
    // The note is what the status shows for the killed instance when the runtime gives no message.
    t.pleg.setStatus("a", podStatus(fixturePod(), { containers: [{ name: "app", state: "exited", exitCode: 137, id: "c1" }] }));
    const status = t.agent.pods().find((p) => p.metadata?.uid === "a")!.status!;
    expect(status.containerStatuses![0]!.state?.terminated?.message).toBe(
      "Container app failed liveness probe, will be restarted: HTTP probe failed with statuscode: 500",
    );
    await t.stop();
  });

  test("the 1 s tick syncs exactly the pods the workers' queue says are due, and only when the tick comes", async () => {
    const t = await setup();
    t.workers.due = ["a", "b"];
    await t.clock.advance(999);
    await t.settle();
    expect(t.workers.calls).toEqual([]);
    await t.clock.advance(1);
    await t.settle();
    expect(t.workers.calls).toEqual(["sync a", "sync b"]);
    await t.stop();
  });

  test("events are handled in the order they were queued, one at a time", async () => {
    // (The PLEG's events pass through its own bounded queue first, so only the order among the
    // events queued directly is fixed; the kubelet's select gives no order across channels either.)
    const t = await setup({ sources: ["api"] });
    t.sources[0]!.send([pod("a")]);
    t.prober.sendUpdate({
      podUid: "a",
      namespace: "default",
      podName: "a",
      containerName: "app",
      containerId: "c1",
      probeType: "readiness",
      result: "success",
      reason: "",
      message: "",
      time: 0,
    });
    t.sources[0]!.send([]);
    await t.settle();
    expect(t.workers.calls).toEqual(["create a", "sync a", "kill+remove a"]);
    await t.stop();
  });
});

describe("syncLoopIteration: housekeeping", () => {
  test("a runtime pod no source has is killed and removed only once every source has sent a complete set", async () => {
    const t = await setup({ sources: ["file", "api"] });
    t.pleg.setStatus("orphan", { ...podStatus(fixturePod(), { containers: [{ name: "app", state: "running" }] }), uid: "orphan", name: "left-over" });
    t.file.send([]);
    t.sources[1]!.send([], false); // the API server could not be listed yet
    await t.clock.advance(2000);
    await t.settle();
    expect(t.workers.calls).toEqual([]);
    t.sources[1]!.send([]);
    await t.clock.advance(2000);
    await t.settle();
    expect(t.workers.calls).toEqual(["kill+remove orphan"]);
    // Each 2 s tick ran housekeeping once: the probe workers of forgotten pods were cleaned up twice.
    expect(t.prober.cleanups).toBe(2);
    await t.stop();
  });
});

describe("the syncloop health check", () => {
  test("not run yet, then ok, then failing when no iteration ran for 2 minutes", async () => {
    const clock = new FakeClock();
    const log = createLogger("text", -1);
    const agent = new Agent({
      runtime: {} as never,
      pleg: new FakePleg(clock),
      config: new PodConfig({ clock, log }),
      sources: [],
      clock,
      log,
      runtimeConfig: { podLogsRoot: "/x", podsDir: "/x", cgroupRoot: "x", nodeName: "n", hostIP: "192.0.2.1" },
      node: async () => ({}),
      prober: (u) => new FakeProber(u),
      podWorkers: () => new FakePodWorkers(),
    });
    const check = () => agent.healthChecks().find((c) => c.name === "syncloop")!;
    expect(check()).toMatchObject({ ok: false, message: "sync loop has not run yet" });
    agent.loop.syncLoopIteration({ kind: "sync" });
    expect(check().ok).toBe(true);
    await clock.advance(2 * 60_000);
    expect(check()).toMatchObject({ ok: false, message: "sync loop last ran 120s ago" });
  });
});

describe("the sources health check", () => {
  test("lists every source's problems as a warning and never fails", async () => {
    const t = await setup({ sources: ["file", "push"] });
    const check = () => t.agent.healthChecks().find((c) => c.name === "sources")!;
    expect(check()).toEqual({ name: "sources", ok: true, message: "ok" });
    t.sources[0]!.problemList = ["/etc/kubernetes/manifests is missing; its 2 pods are kept"];
    t.sources[1]!.problemList = ["pushed-pods.json cannot be read"];
    expect(check()).toEqual({
      name: "sources",
      ok: true,
      message: "ok",
      warning: "file source: /etc/kubernetes/manifests is missing; its 2 pods are kept; push source: pushed-pods.json cannot be read",
    });
    // The node's Ready verdict is the failing checks: a source's problem is not one of them.
    expect(
      t.agent
        .healthChecks()
        .filter((c) => !c.ok)
        .map((c) => c.name),
    ).not.toContain("sources");
    await t.stop();
  });
});
