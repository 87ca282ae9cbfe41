// Where pods and nodes come from: dumps and pod files, live agents over HTTP (a fake one here), the
// pending directory, and the --watch loop that ties them together.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1";
import type { PriorityClass } from "kubernetes-types/scheduling/v1";
import { defaultConfig } from "../../src/scheduler/config/config";
import type { AttemptResult } from "../../src/scheduler/framework/result";
import { scheduleOnce } from "../../src/scheduler/once";
import { formatReports } from "../../src/scheduler/report";
import { AgentClient, AgentCluster, type ClusterEvents } from "../../src/scheduler/sources/agents";
import { collectObjects, derivedUID, InputError, parseObjects, preparePod } from "../../src/scheduler/sources/input";
import { PendingDir } from "../../src/scheduler/sources/pending-dir";
import { runWatch } from "../../src/scheduler/watch";
import { FakeAgent } from "./fake-agent";
import { node, pod } from "./fixtures";

const SILENT = { info() {}, warn() {}, debug() {} };
const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "sched-test-"));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

function agent(name: string, cpu = "2"): FakeAgent {
  const a = new FakeAgent(node(name, { cpu })).start();
  cleanup.push(() => a.stop());
  return a;
}

async function until<T>(what: string, fn: () => T | undefined | false, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("input", () => {
  test("Lists, typed lists and several documents; positions for errors", () => {
    const text =
      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a}}\n---\nkind: PodList\nitems:\n- {metadata: {name: p}}\n---\n{apiVersion: v1, kind: Service, metadata: {name: s}}\n---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n";
    const c = collectObjects(parseObjects(text, "dump.yaml"));
    expect([c.nodes.length, c.pods.length, c.workloads.services.length, [...c.ignoredKinds]]).toEqual([1, 1, 1, ["ConfigMap"]]);
    expect(c.pods[0]!.origin).toBe("dump.yaml:6 items[0]");
    expect(() => parseObjects("kind: Pod\nmetadata: [\n", "bad.yaml")).toThrow(/^bad\.yaml:\d+:\d+: invalid YAML/);
    expect(() => parseObjects("- a\n", "list.yaml")).toThrow(InputError);
  });

  test("a pod to place is defaulted, gets a stable UID and its PriorityClass's priority", () => {
    const classes: PriorityClass[] = [
      { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "high" }, value: 1000, preemptionPolicy: "Never" },
    ];
    const p = preparePod(
      { metadata: { name: "p" }, spec: { priorityClassName: "high", containers: [{ name: "c", image: "x", resources: { limits: { cpu: "1" } } }] } },
      "p.yaml:1",
      classes,
    );
    expect([p.metadata!.namespace, p.metadata!.uid, p.spec!.priority, p.spec!.preemptionPolicy, p.spec!.schedulerName]).toEqual([
      "default",
      derivedUID("default", "p"),
      1000,
      "Never",
      "default-scheduler",
    ]);
    // Requests default to limits, as the API server does.
    expect(p.spec!.containers[0]!.resources!.requests).toEqual({ cpu: "1" });
    expect(preparePod({ metadata: { name: "q" }, spec: { priorityClassName: "system-node-critical", containers: [] } }, "q", []).spec!.priority).toBe(
      2000001000,
    );
    expect(() => preparePod({ metadata: { name: "r" }, spec: { priorityClassName: "nope", containers: [] } }, "r.yaml:3", [])).toThrow(
      "r.yaml:3: pod default/r: no PriorityClass with name nope was found",
    );
  });
});

describe("report", () => {
  test("table and JSON carry the node or the whole FailedScheduling message", async () => {
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [node("a", { cpu: "1" })],
      boundPods: [],
      pendingPods: [{ pod: pod("fits", { cpu: "1" }) }, { pod: pod("big", { cpu: "2" }) }],
    });
    const table = formatReports(reports, "table", false).split("\n");
    expect(table[0]).toMatch(/^POD\s+RESULT\s+NODE\s+DETAILS$/);
    expect(table[1]).toMatch(/^default\/fits\s+Scheduled\s+a\s+1 feasible of 1 nodes evaluated$/);
    expect(table[2]).toContain("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
    const json = formatReports(reports, "json", false)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(json.map((j) => [j.name, j.outcome, j.node])).toEqual([
      ["fits", "Scheduled", "a"],
      ["big", "Unschedulable", null],
    ]);
    expect(json[1].unschedulablePlugins).toEqual(["NodeResourcesFit"]);
  });
});

describe("live agents", () => {
  test("nodes and bound pods are read; binding pushes the pod with spec.nodeName and the token", async () => {
    const a = agent("node-a", "2");
    a.pods.set("default/static", { ...pod("static", { nodeName: "node-a", cpu: "1500m" }), status: { phase: "Running" } });
    a.pods.set("default/done", { ...pod("done", { nodeName: "node-a", cpu: "2" }), status: { phase: "Succeeded" } });
    const b = agent("node-b", "1");
    const clients = [new AgentClient(a.url, "secret"), new AgentClient(b.url, "secret")];
    const seen: string[] = [];
    const collector = {
      onNodeAdd: (n) => seen.push(`node ${n.metadata!.name}`),
      onPodAdd: (p) => seen.push(`pod ${p.metadata!.name}`),
      onNodeUpdate() {},
      onNodeDelete() {},
      onPodUpdate() {},
      onPodDelete() {},
    } as ClusterEvents;
    const cluster = new AgentCluster(clients, collector, SILENT);
    await cluster.sync();
    // A finished pod no longer uses its node.
    expect(seen.sort()).toEqual(["node node-a", "node node-b", "pod static"]);
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [a.node, b.node],
      boundPods: [...a.pods.values()].filter((p) => p.status?.phase === "Running"),
      pendingPods: [{ pod: preparePod(pod("web", { cpu: "1" }), "x", []) }],
      client: (s) => (cluster.setEvents(s), cluster),
    });
    expect(reports[0]!.node).toBe("node-b");
    expect(b.pushes.map((p) => [p.metadata!.name, p.spec!.nodeName, p.status])).toEqual([["web", "node-b", undefined]]);
  });

  test("a wrong token fails the binding with the agent's message", async () => {
    const a = agent("node-a");
    const cluster = new AgentCluster(
      [new AgentClient(a.url, "wrong")],
      { onNodeAdd() {}, onPodAdd() {}, onNodeUpdate() {}, onNodeDelete() {}, onPodUpdate() {}, onPodDelete() {} } as unknown as ClusterEvents,
      SILENT,
    );
    await cluster.sync();
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [a.node],
      boundPods: [],
      pendingPods: [{ pod: pod("web") }],
      client: (s) => (cluster.setEvents(s), cluster),
      maxAttempts: 2,
    });
    expect(reports[0]!.outcome).toBe("SchedulerError");
    expect(reports[0]!.message).toContain("403 Forbidden: Forbidden: the bearer token is not valid for this agent");
    expect(reports[0]!.attempts).toBe(2);
  });

  test("an agent that stops answering keeps its node and pods", async () => {
    const a = agent("node-a");
    a.pods.set("default/x", pod("x", { nodeName: "node-a" }));
    const events: string[] = [];
    const cluster = new AgentCluster(
      [new AgentClient(a.url, "secret", 500)],
      {
        onNodeAdd: () => events.push("add"),
        onNodeDelete: () => events.push("node gone"),
        onPodDelete: () => events.push("pod gone"),
        onPodAdd() {},
        onNodeUpdate() {},
        onPodUpdate() {},
      } as unknown as ClusterEvents,
      SILENT,
    );
    await cluster.sync();
    a.stop();
    await cluster.sync();
    expect(events).toEqual(["add"]);
  });
});

describe("pending directory and --watch", () => {
  test("files add, update and delete pods; a bad edit keeps the pods; bound files move to bound/", () => {
    const dir = tmp();
    const events: string[] = [];
    const pd = new PendingDir(
      dir,
      {
        onPodAdd: (p: Pod) => events.push(`add ${p.metadata!.name}`),
        onPodUpdate: (_o: Pod, n: Pod) => events.push(`update ${n.metadata!.name}`),
        onPodDelete: (p: Pod) => events.push(`delete ${p.metadata!.name}`),
      } as unknown as ClusterEvents,
      SILENT,
    );
    const yaml = (name: string, cpu: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: ${cpu}}}}]}\n`;
    writeFileSync(join(dir, "a.yaml"), yaml("a", "1"));
    writeFileSync(join(dir, ".hidden.yaml"), yaml("h", "1"));
    pd.scan();
    writeFileSync(join(dir, "a.yaml"), yaml("a", "2"));
    pd.scan();
    writeFileSync(join(dir, "a.yaml"), "kind: Pod\nmetadata: [\n");
    pd.scan();
    expect(pd.pendingPods().map((p) => String(p.spec!.containers[0]!.resources!.requests!.cpu))).toEqual(["2"]);
    writeFileSync(join(dir, "b.yaml"), yaml("b", "1"));
    pd.scan();
    rmSync(join(dir, "b.yaml"));
    pd.scan();
    expect(events).toEqual(["add a", "update a", "add b", "delete b"]);
    pd.podBound(derivedUID("default", "a"));
    expect(existsSync(join(dir, "bound", "a.yaml"))).toBe(true);
    expect(existsSync(join(dir, "a.yaml"))).toBe(false);
  });

  test("--watch places a pod that did not fit once another pod is deleted", async () => {
    const a = agent("node-a", "2");
    a.pods.set("default/hog", { ...pod("hog", { nodeName: "node-a", cpu: "1500m" }), status: { phase: "Running" } });
    const dir = tmp();
    const attempts: AttemptResult[] = [];
    const ac = new AbortController();
    const running = runWatch({
      config: defaultConfig(),
      agents: [new AgentClient(a.url, "secret")],
      pendingDir: dir,
      pollIntervalMs: 50,
      log: SILENT,
      signal: ac.signal,
      onAttempt: (r) => attempts.push(r),
    });
    writeFileSync(
      join(dir, "web.yaml"),
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: 1}}}]}\n",
    );
    const failed = await until("a failed attempt", () => attempts.find((r) => r.outcome === "Unschedulable"));
    expect(failed.message).toBe(
      "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    );
    a.pods.delete("default/hog");
    const placed = await until("the pod placed", () => attempts.find((r) => r.outcome === "Scheduled"));
    expect(placed.node).toBe("node-a");
    expect(a.pushes.map((p) => p.metadata!.name)).toEqual(["web"]);
    await until("the file moved to bound/", () => existsSync(join(dir, "bound", "web.yaml")));
    ac.abort();
    await running;
  });
});

test("JSON carries the event's 1024-byte copy when the message is longer", async () => {
  const extra = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`example.com/resource-${i}`, "1"]));
  const { reports } = await scheduleOnce({
    config: defaultConfig(),
    nodes: [node("n")],
    boundPods: [],
    pendingPods: [{ pod: pod("greedy", { extra }) }, { pod: pod("modest") }],
  });
  const [greedy, modest] = formatReports(reports, "json", false)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(Buffer.byteLength(greedy.message)).toBeGreaterThan(1024);
  expect(greedy.message).toContain("1 Insufficient example.com/resource-59");
  expect(Buffer.byteLength(greedy.eventMessage)).toBe(1024);
  expect(greedy.eventMessage.endsWith(" ...")).toBe(true);
  expect(modest.eventMessage).toBeUndefined();
});
