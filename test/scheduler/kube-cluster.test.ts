// The cluster scheduler (schedule --kubeconfig) against the in-process test API server, with the
// kube-scheduler's own identity: pending pods are bound through pods/binding, a pod that fits nowhere
// gets PodScheduled=False/Unschedulable with kube-scheduler's message and a FailedScheduling event and
// is bound once a node appears, other schedulers' pods are left alone, and a binding refused because
// the pod was bound meanwhile is not retried. Backoff runs on a FakeClock; API traffic is awaited.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { Event } from "kubernetes-types/events/v1";
import { loadKubeClient, type KubeClient } from "../../src/kube";
import { defaultConfig, defaultProfile } from "../../src/scheduler";
import type { AttemptResult } from "../../src/scheduler/framework/result";
import { ApiServerUnreachable, InClusterScheduler } from "../../src/scheduler/in-cluster";
import { failurePatch, truncateNote } from "../../src/scheduler/sources/kube-recorder";
import { FakeClock } from "../../src/util/clock";
import { createLogger } from "../../src/util/log";
import { TestApiServer } from "../fakes/apiserver";

const quiet = createLogger("text", 0);

function node(name: string, cpu = "2"): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
    status: {
      capacity: { cpu, memory: "4Gi", pods: "110" },
      allocatable: { cpu, memory: "4Gi", pods: "110" },
      conditions: [{ type: "Ready", status: "True" }],
    },
  };
}

function pod(name: string, cpu: string, schedulerName?: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: {
      ...(schedulerName ? { schedulerName } : {}),
      containers: [{ name: "main", image: "busybox", resources: { requests: { cpu } } }],
    },
  };
}

/** Polls until the condition holds; the scheduler reacts to watch events, which take real time. */
async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

let api: TestApiServer;
let dir: string;
let admin: KubeClient;
const running: Array<() => Promise<void>> = [];

beforeEach(async () => {
  api = await TestApiServer.start();
  dir = mkdtempSync(join(tmpdir(), "kube-sched-"));
  api.writeKubeconfig(join(dir, "admin.kubeconfig"), api.adminToken);
  admin = await loadKubeClient(join(dir, "admin.kubeconfig"));
});

afterEach(async () => {
  for (const stop of running.splice(0)) await stop();
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function startScheduler(schedulerName = "default-scheduler") {
  const path = join(dir, "scheduler.kubeconfig");
  api.writeKubeconfig(path, api.schedulerToken);
  const client = await loadKubeClient(path);
  const clock = new FakeClock(Date.now());
  const attempts: AttemptResult[] = [];
  const config = { ...defaultConfig(), profiles: [defaultProfile(schedulerName)] };
  const sched = new InClusterScheduler({ client, config, log: quiet, clock, hostname: "testhost", onAttempt: (a) => attempts.push(a), connectAttempts: 1 });
  await sched.connect();
  const ac = new AbortController();
  const done = sched.run(ac.signal);
  running.push(async () => {
    ac.abort();
    await done;
  });
  return { sched, clock, attempts };
}

const createNode = (n: Node) => admin.core.createNode({ body: n as never });
const createPod = (p: Pod) => admin.core.createNamespacedPod({ namespace: "default", body: p as never });
const getPod = (name: string) => api.store.get("pods", "default", name) as Pod | undefined;
const podEvents = (name: string) => (api.store.list("events.k8s.io", "default") as unknown as Event[]).filter((e) => e.regarding?.name === name);
const bindings = (name: string) => api.requests.filter((r) => r.resource === "pods" && r.subresource === "binding" && r.name === name);

describe("schedule --kubeconfig", () => {
  test("a pending pod is bound to the node that fits, as the scheduler, with a Scheduled event", async () => {
    await createNode(node("small", "1"));
    await createNode(node("big", "4"));
    const { attempts } = await startScheduler();
    await createPod(pod("web", "2"));
    const bound = await until("web bound", () => getPod("web")?.spec?.nodeName);
    expect(bound).toBe("big");
    expect(bindings("web").map((r) => [r.user, r.code])).toEqual([["system:kube-scheduler", 201]]);
    // The attempt is reported once the binding's answer is back, which may be after the store has it.
    await until("the attempt reported", () => attempts.length > 0);
    expect(attempts.map((a) => [a.name, a.outcome, a.node])).toEqual([["web", "Scheduled", "big"]]);
    const [scheduled] = await until("Scheduled event", () => podEvents("web").length > 0 && podEvents("web"));
    expect(scheduled).toMatchObject({
      type: "Normal",
      reason: "Scheduled",
      action: "Binding",
      note: "Successfully assigned default/web to big",
      reportingController: "default-scheduler",
      reportingInstance: "default-scheduler-testhost",
      regarding: { kind: "Pod", namespace: "default", name: "web" },
    });
  });

  test("a pod that fits nowhere is marked Unschedulable with the message and an event, then bound when a node is added", async () => {
    await createNode(node("n1", "1"));
    const { attempts } = await startScheduler();
    await createPod(pod("huge", "3"));
    const message = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
    const cond = await until("PodScheduled=False", () => getPod("huge")?.status?.conditions?.find((c) => c.type === "PodScheduled"));
    expect(cond).toMatchObject({ type: "PodScheduled", status: "False", reason: "Unschedulable", message });
    // As above: the attempt is reported once the status patch's answer is back, which may be after the store has it.
    await until("the attempt reported", () => attempts.length > 0);
    expect(attempts[0]).toMatchObject({ name: "huge", outcome: "Unschedulable", message });
    const patches = api.requests.filter((r) => r.verb === "patch" && r.subresource === "status" && r.name === "huge");
    expect(patches.map((r) => [r.user, r.code])).toEqual([["system:kube-scheduler", 200]]);
    const [failed] = await until("FailedScheduling event", () => podEvents("huge").length > 0 && podEvents("huge"));
    expect(failed).toMatchObject({
      type: "Warning",
      reason: "FailedScheduling",
      action: "Scheduling",
      note: message,
      reportingController: "default-scheduler",
    });
    // NodeAdd is an event NodeResourcesFit registered: the pod leaves unschedulablePods.
    await createNode(node("n2", "4"));
    expect(await until("huge bound", () => getPod("huge")?.spec?.nodeName)).toBe("n2");
    await until("the second attempt reported", () => attempts.length > 1);
    expect(attempts.map((a) => a.outcome)).toEqual(["Unschedulable", "Scheduled"]);
  });

  test("pods for another scheduler name are left alone; the profile named by --scheduler-name is served", async () => {
    await createNode(node("n1"));
    const { attempts } = await startScheduler("nodeagent-scheduler");
    await createPod(pod("theirs", "100m"));
    await createPod(pod("ours", "100m", "nodeagent-scheduler"));
    expect(await until("ours bound", () => getPod("ours")?.spec?.nodeName)).toBe("n1");
    const [scheduled] = await until("Scheduled event", () => podEvents("ours").length > 0 && podEvents("ours"));
    expect(scheduled!.reportingController).toBe("nodeagent-scheduler");
    expect(getPod("theirs")?.spec?.nodeName).toBeUndefined();
    expect(getPod("theirs")?.status?.conditions ?? []).toEqual([]);
    expect(bindings("theirs")).toEqual([]);
    expect(attempts.map((a) => a.name)).toEqual(["ours"]);
  });

  test("a binding refused with 409 because the pod was bound meanwhile is not retried", async () => {
    await createNode(node("n1"));
    await createNode(node("n2"));
    const { sched, clock, attempts } = await startScheduler();
    api.failNext({ verb: "create", resource: "pods", subresource: "binding" }, 409);
    await createPod(pod("raced", "100m"));
    await until("the refused binding", () => attempts.length > 0);
    expect(attempts[0]).toMatchObject({ outcome: "SchedulerError" });
    const uid = getPod("raced")!.metadata!.uid!;
    // The binding error sent it back to the queue, with backoff; Unreserve forgot the assumed pod.
    expect(sched.scheduler.queue.get(uid)?.queue).toBe("Backoff");
    expect(sched.scheduler.cache.isAssumedPod(getPod("raced")!)).toBe(false);
    await until("the SchedulerError recorded", () => getPod("raced")?.status?.conditions?.some((c) => c.reason === "SchedulerError"));
    // Someone else bound it: the informer shows it bound, so it leaves the queue and counts on n2.
    const current = getPod("raced")!;
    api.store.bind("default", "raced", {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "raced", namespace: "default" },
      target: { kind: "Node", name: "n2" },
    });
    await until("raced leaves the queue", () => sched.scheduler.queue.get(uid) === undefined);
    expect(sched.scheduler.cache.getPod(current)?.pod.spec?.nodeName).toBe("n2");
    await clock.advance(30_000);
    await sched.scheduler.settle();
    expect(bindings("raced")).toHaveLength(1);
    expect(attempts).toHaveLength(1);
    expect(api.requests.filter((r) => r.verb === "patch" && r.name === "raced")).toHaveLength(1);
  });

  test("a failed binding puts the pod back with backoff; after it, the pod is bound", async () => {
    await createNode(node("n1"));
    const { clock, attempts } = await startScheduler();
    api.failNext({ verb: "create", resource: "pods", subresource: "binding" }, 500);
    await createPod(pod("retry", "100m"));
    await until("the failed binding", () => attempts.length > 0);
    expect(attempts[0]).toMatchObject({ outcome: "SchedulerError", reason: "SchedulerError" });
    expect(attempts[0]!.message).toContain("binding default/retry to n1");
    expect(getPod("retry")?.spec?.nodeName).toBeUndefined();
    await clock.advance(2000);
    expect(await until("retry bound", () => getPod("retry")?.spec?.nodeName)).toBe("n1");
    expect(bindings("retry").map((r) => r.code)).toEqual([500, 201]);
  });

  test("bound pods use up their node; Succeeded and Failed ones do not, and a pod turning terminal frees its room", async () => {
    await createNode(node("n1", "2"));
    // Created bound (a create resets the status to Pending, as the API server does), then reported.
    const runOnN1 = (p: Pod, phase: "Running" | "Succeeded" | "Failed") => {
      api.store.create("pods", { ...p, spec: { ...p.spec!, nodeName: "n1" } });
      api.store.patchStatus("pods", "default", p.metadata!.name!, { status: { phase } });
    };
    runOnN1(pod("done", "2"), "Succeeded");
    runOnN1(pod("crashed", "2"), "Failed");
    runOnN1(pod("busy", "1500m"), "Running");
    const { attempts } = await startScheduler();
    await createPod(pod("late", "1"));
    await until("late tried", () => attempts.length > 0);
    expect(attempts[0]!.outcome).toBe("Unschedulable");
    expect(attempts[0]!.message).toStartWith("0/1 nodes are available: 1 Insufficient cpu.");
    // The kubelet reports busy finished: it leaves the scheduler's watch, which frees its CPU.
    api.store.patchStatus("pods", "default", "busy", { status: { phase: "Succeeded" } });
    expect(await until("late bound", () => getPod("late")?.spec?.nodeName)).toBe("n1");
  });

  test("a dropped watch loses nothing: pods created after it are scheduled", async () => {
    await createNode(node("n1"));
    await startScheduler();
    const watchesBefore = api.requests.filter((r) => r.verb === "watch" && r.resource === "pods").length;
    api.dropWatches();
    await createPod(pod("after-drop", "100m"));
    expect(await until("after-drop bound", () => getPod("after-drop")?.spec?.nodeName)).toBe("n1");
    expect(api.requests.filter((r) => r.verb === "watch" && r.resource === "pods").length).toBeGreaterThan(watchesBefore);
  });

  test("a pod deleted while it waits leaves the queue", async () => {
    await createNode(node("n1", "1"));
    const { sched, attempts } = await startScheduler();
    await createPod(pod("doomed", "3"));
    await until("doomed tried", () => attempts.length > 0);
    const uid = getPod("doomed")!.metadata!.uid!;
    expect(sched.scheduler.queue.get(uid)?.queue).toBe("Unschedulable");
    await admin.core.deleteNamespacedPod({ name: "doomed", namespace: "default" });
    await until("doomed leaves the queue", () => sched.scheduler.queue.get(uid) === undefined);
  });
});

test("credentials the API server refuses end the start at once, naming the server", async () => {
  const path = join(dir, "stranger.kubeconfig");
  api.writeKubeconfig(path, "not-a-known-token");
  const client = await loadKubeClient(path);
  const sched = new InClusterScheduler({ client, config: defaultConfig(), log: quiet, hostname: "testhost" });
  const err = await sched.connect().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiServerUnreachable);
  expect((err as Error).message).toStartWith(`API server ${client.server} refused to list nodes: 401`);
  expect(api.requests.filter((r) => r.resource === "nodes")).toHaveLength(1);
  await sched.stop();
});

describe("what is written about a failed attempt", () => {
  const attempt = (message: string, nominatedNode?: string): AttemptResult => ({
    namespace: "default",
    name: "p",
    uid: "u1",
    attempt: 1,
    outcome: "Unschedulable",
    reason: "Unschedulable",
    message,
    nominatedNode,
    time: 0,
  });
  const now = new Date("2026-01-02T03:04:05.678Z");

  test("the condition alone, with the transition time kept while the status stays False", () => {
    const fresh: Pod = { metadata: { name: "p", uid: "u1" }, status: { phase: "Pending" } };
    expect(failurePatch(fresh, attempt("0/1 nodes are available: 1 Insufficient cpu."), now)).toEqual({
      status: {
        conditions: [
          {
            type: "PodScheduled",
            status: "False",
            reason: "Unschedulable",
            message: "0/1 nodes are available: 1 Insufficient cpu.",
            lastTransitionTime: "2026-01-02T03:04:05Z",
          },
        ],
      },
    });
    const marked: Pod = {
      ...fresh,
      status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "old", lastTransitionTime: "2025-01-01T00:00:00Z" }] },
    };
    expect(failurePatch(marked, attempt("new"), now)?.status.conditions[0]?.lastTransitionTime).toBe("2025-01-01T00:00:00Z");
    // Nothing new: no request at all (UpdatePodCondition reports no change).
    expect(failurePatch(marked, attempt("old"), now)).toBeUndefined();
  });

  test("a nomination is set, and cleared with null", () => {
    const p: Pod = {
      metadata: { name: "p", uid: "u1" },
      status: { nominatedNodeName: "n1", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "m" }] },
    };
    expect(failurePatch(p, attempt("m", "n2"), now)?.status.nominatedNodeName).toBe("n2");
    expect(failurePatch(p, attempt("m"), now)?.status.nominatedNodeName).toBeNull();
    expect(failurePatch(p, attempt("m", "n1"), now)).toBeUndefined();
  });

  test("event notes are cut to 1024 bytes with ' ...'", () => {
    expect(truncateNote("short")).toBe("short");
    const long = truncateNote("é".repeat(600));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(1024);
    expect(long.endsWith("é ...")).toBe(true);
  });
});
