// The scheduler as a whole: the FailedScheduling message, how many nodes a cycle looks at and where
// it starts, preemption (victims, candidate choice, nomination), ties, and the explanation.
import { describe, expect, test } from "bun:test";
import { defaultConfig } from "../../src/scheduler/config/config";
import { Diagnosis, fitErrorMessage, NOTE_LENGTH_LIMIT, truncateMessage } from "../../src/scheduler/framework/diagnosis";
import { Code, Status } from "../../src/scheduler/framework/status";
import { scheduleOnce } from "../../src/scheduler/once";
import { seededRandom } from "../../src/util/random";
import { Scheduler } from "../../src/scheduler/scheduler";
import { FakeClock } from "../../src/util/clock";
import { node, pod } from "./fixtures";

describe("the FailedScheduling message", () => {
  const d = (statuses: Record<string, string[]>) => {
    const diag = new Diagnosis();
    for (const [n, reasons] of Object.entries(statuses)) diag.nodeToStatus.set(n, new Status(Code.Unschedulable, reasons));
    return diag;
  };

  test("a histogram of reasons, sorted as strings (so 10 comes before 2), then PostFilter's message", () => {
    const statuses: Record<string, string[]> = {};
    for (let i = 0; i < 10; i++) statuses[`a${i}`] = ["Insufficient cpu"];
    statuses.b1 = ["node(s) had untolerated taint(s)"];
    statuses.b2 = ["node(s) had untolerated taint(s)"];
    statuses.c = ["Insufficient cpu", "Insufficient memory"];
    const diag = d(statuses);
    diag.postFilterMsg = "preemption: 0/13 nodes are available: 13 Preemption is not helpful for scheduling.";
    expect(fitErrorMessage(13, diag)).toBe(
      "0/13 nodes are available: 1 Insufficient memory, 11 Insufficient cpu, 2 node(s) had untolerated taint(s). preemption: 0/13 nodes are available: 13 Preemption is not helpful for scheduling.",
    );
  });

  test("a PreFilter rejection is said once, not per node", () => {
    const diag = new Diagnosis();
    diag.preFilterMsg = "node(s) didn't satisfy plugin NodeAffinity";
    diag.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, [diag.preFilterMsg]);
    expect(fitErrorMessage(5, diag)).toBe("0/5 nodes are available: node(s) didn't satisfy plugin NodeAffinity.");
  });

  test("nodes not listed count with the absent nodes' reasons", () => {
    const diag = d({ a: ["Too many pods"] });
    diag.nodeToStatus.absentNodesStatus = new Status(Code.UnschedulableAndUnresolvable, ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]);
    expect(fitErrorMessage(4, diag)).toBe("0/4 nodes are available: 1 Too many pods, 3 node(s) didn't satisfy plugin(s) [NodeAffinity].");
  });

  test('the event\'s copy is cut at 1024 bytes with " ..."', () => {
    const long = "x".repeat(2000);
    const t = truncateMessage(long);
    expect(Buffer.byteLength(t)).toBe(NOTE_LENGTH_LIMIT);
    expect(t.endsWith(" ...")).toBe(true);
    expect(truncateMessage("short")).toBe("short");
  });
});

describe("nodes per cycle", () => {
  const s = new Scheduler({ config: defaultConfig(), clock: new FakeClock() });

  test("all nodes below 100; else 50% − n/125, at least 5%, at least 100 nodes", () => {
    const cases: Array<[number, number]> = [
      [50, 50],
      [100, 100],
      [500, 230],
      [1000, 420],
      [2000, 680],
      [5000, 500],
      [6000, 300],
      [15000, 750],
    ];
    for (const [n, want] of cases) expect([n, s.numFeasibleNodesToFind(undefined, n)]).toEqual([n, want]);
    expect(s.numFeasibleNodesToFind(50, 1000)).toBe(500);
    expect(s.numFeasibleNodesToFind(1, 1000)).toBe(100);
  });

  test("the search starts where the previous cycle stopped", async () => {
    const nodes = Array.from({ length: 250 }, (_, i) => node(`n${String(i).padStart(3, "0")}`));
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes,
      boundPods: [],
      pendingPods: [pod("a"), pod("b"), pod("c")].map((p) => ({ pod: p })),
      explain: true,
      random: seededRandom(1),
    });
    // 250 nodes: 50 − 2 = 48% → 120 nodes to find; each cycle starts 120 further on.
    expect(reports.map((r) => r.results[0]!.explanation!.filter!.startIndex)).toEqual([0, 120, 240]);
    expect(reports.map((r) => r.results[0]!.evaluatedNodes)).toEqual([120, 120, 120]);
  });
});

describe("preemption", () => {
  test("the fewest victims: lower-priority pods are reprieved most important first", async () => {
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [node("n", { cpu: "2" })],
      boundPods: [
        pod("old", { nodeName: "n", cpu: "1", startTime: "2026-01-01T00:00:00Z" }),
        pod("young", { nodeName: "n", cpu: "1", startTime: "2026-01-02T00:00:00Z" }),
      ],
      pendingPods: [{ pod: pod("vip", { cpu: "1", priority: 100 }) }],
    });
    const r = reports[0]!;
    expect([r.outcome, r.node, r.preempted]).toEqual(["Scheduled", "n", ["default/young on n"]]);
    expect(r.results[0]!.outcome).toBe("Unschedulable");
    expect(r.results[0]!.nominatedNode).toBe("n");
    expect(r.results[0]!.message).toBe("0/1 nodes are available: 1 Insufficient cpu.");
  });

  test("the node whose most important victim matters least is chosen", async () => {
    const { reports, scheduler } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [node("a", { cpu: "1" }), node("b", { cpu: "1" })],
      boundPods: [pod("x", { nodeName: "a", cpu: "1", priority: 10 }), pod("y", { nodeName: "b", cpu: "1", priority: 5 })],
      pendingPods: [{ pod: pod("vip", { cpu: "1", priority: 100 }) }],
    });
    expect([reports[0]!.node, reports[0]!.preempted]).toEqual(["b", ["default/y on b"]]);
    expect(
      scheduler.cache
        .pods()
        .map((p) => p.name)
        .sort(),
    ).toEqual(["vip", "x"]);
  });

  test("no lower-priority pods, or preemptionPolicy Never: said in the message", async () => {
    const common = { config: defaultConfig(), nodes: [node("n", { cpu: "1" })], boundPods: [pod("busy", { nodeName: "n", cpu: "1", priority: 100 })] };
    let { reports } = await scheduleOnce({ ...common, pendingPods: [{ pod: pod("p", { cpu: "1", priority: 100 }) }] });
    expect(reports[0]!.message).toBe(
      "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
    );
    ({ reports } = await scheduleOnce({
      ...common,
      boundPods: [pod("busy", { nodeName: "n", cpu: "1" })],
      pendingPods: [{ pod: pod("p", { cpu: "1", priority: 100, preemptionPolicy: "Never" }) }],
    }));
    expect(reports[0]!.message).toBe("0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.");
  });

  test("a pod nominated to a node is counted there against lower-priority pods", async () => {
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [node("n", { cpu: "2" })],
      boundPods: [pod("low", { nodeName: "n", cpu: "2" })],
      // vip preempts low and is nominated; filler (priority 0) must not take the room freed for it.
      pendingPods: [{ pod: pod("vip", { cpu: "2", priority: 100 }) }, { pod: pod("filler", { cpu: "1" }) }],
    });
    expect(reports.map((r) => [r.name, r.outcome, r.node ?? "-"])).toEqual([
      ["vip", "Scheduled", "n"],
      ["filler", "Unschedulable", "-"],
    ]);
  });
});

describe("choosing among nodes", () => {
  test("equal scores are broken at random (reproducibly with a seed); the explanation says how many tied", async () => {
    const nodes = [node("a"), node("b"), node("c")];
    const picks = new Set<string>();
    for (let seed = 0; seed < 20; seed++) {
      const { reports } = await scheduleOnce({
        config: defaultConfig(),
        nodes,
        boundPods: [],
        pendingPods: [{ pod: pod("p", { cpu: "1" }) }],
        random: seededRandom(seed),
        explain: true,
      });
      picks.add(reports[0]!.node!);
      expect(reports[0]!.results[0]!.explanation!.selected!.tiedWith).toBe(2);
    }
    expect([...picks].sort()).toEqual(["a", "b", "c"]);
    const again = await Promise.all(
      [1, 2].map(() =>
        scheduleOnce({ config: defaultConfig(), nodes, boundPods: [], pendingPods: [{ pod: pod("p", { cpu: "1" }) }], random: seededRandom(7) }),
      ),
    );
    expect(again[0]!.reports[0]!.node).toBe(again[1]!.reports[0]!.node!);
  });

  test("the explanation has every Filter verdict (also those the scheduler did not run) and every score", async () => {
    const { reports } = await scheduleOnce({
      config: defaultConfig(),
      nodes: [node("big", { cpu: "8" }), node("small", { cpu: "1" }), node("tainted", { cpu: "1", taints: [{ key: "k", effect: "NoSchedule" }] })],
      boundPods: [],
      pendingPods: [{ pod: pod("p", { cpu: "2" }) }],
      explain: true,
    });
    const e = reports[0]!.results[0]!.explanation!;
    const tainted = e.filter!.nodes.find((n) => n.node === "tainted")!;
    const tt = tainted.verdicts.find((v) => v.plugin === "TaintToleration")!;
    const fit = tainted.verdicts.find((v) => v.plugin === "NodeResourcesFit")!;
    expect([tt.code, tt.ranByScheduler, tt.detail]).toEqual(["UnschedulableAndUnresolvable", true, "untolerated taint k:NoSchedule"]);
    expect([fit.code, fit.ranByScheduler]).toEqual(["UnschedulableAndUnresolvable", false]);
    expect(e.filter!.feasible).toBe(1);
    expect(e.selected).toEqual({ node: "big", score: 0, tiedWith: 0 });
  });
});
