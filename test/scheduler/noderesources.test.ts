// NodeResourcesFit and NodeResourcesBalancedAllocation on hand-computed cases (upstream's integer math).
import { describe, expect, test } from "bun:test";
import { Code } from "../../src/scheduler/framework/status";
import { NodeResourcesBalancedAllocation, balancedResourceScorer } from "../../src/scheduler/plugins/noderesources/balanced-allocation";
import { NodeResourcesFit } from "../../src/scheduler/plugins/noderesources/fit";
import { brokenLinearFunction, leastRequestedScore, mostRequestedScore } from "../../src/scheduler/plugins/noderesources/resource-allocation";
import { node, pi, pod, state, world } from "./fixtures";

function fitFilter(plugin: NodeResourcesFit, p: ReturnType<typeof pod>, w: ReturnType<typeof world>, nodeName: string) {
  const s = state();
  plugin.preFilter(s, pi(p));
  return plugin.filter(s, pi(p), w.info(nodeName));
}

describe("NodeResourcesFit Filter", () => {
  const w = world([node("n", { cpu: "4", memory: "8Gi", pods: "3" })], [pod("a", { cpu: "3", nodeName: "n" }), pod("b", { nodeName: "n" })]);
  const fit = new NodeResourcesFit();

  test("a pod that fits passes", () => {
    expect(fitFilter(fit, pod("p", { cpu: "1", memory: "1Gi" }), w, "n")).toBeUndefined();
  });

  test("more than is free is Unschedulable (preemption may help), with the numbers in the detail", () => {
    const s = fitFilter(fit, pod("p", { cpu: "2" }), w, "n")!;
    expect(s.code).toBe(Code.Unschedulable);
    expect(s.reasons).toEqual(["Insufficient cpu"]);
    expect(s.detail).toBe("cpu: requested 2, 1 free (3 of 4 allocatable requested)");
  });

  test("more than the node has at all is UnschedulableAndUnresolvable", () => {
    const s = fitFilter(fit, pod("p", { cpu: "5", memory: "9Gi" }), w, "n")!;
    expect(s.code).toBe(Code.UnschedulableAndUnresolvable);
    expect(s.reasons).toEqual(["Insufficient cpu", "Insufficient memory"]);
  });

  test("a full node says Too many pods, even for a pod without requests", () => {
    const full = world([node("n", { pods: "2" })], [pod("a", { nodeName: "n" }), pod("b", { nodeName: "n" })]);
    const s = fitFilter(fit, pod("p"), full, "n")!;
    expect(s.code).toBe(Code.Unschedulable);
    expect(s.reasons).toEqual(["Too many pods"]);
  });

  test("extended resources are counted, and ignoredResources skips them", () => {
    const gw = world([node("n", { extra: { "example.com/gpu": "2" } })], [pod("a", { nodeName: "n", extra: { "example.com/gpu": "1" } })]);
    expect(fitFilter(fit, pod("p", { extra: { "example.com/gpu": "1" } }), gw, "n")).toBeUndefined();
    expect(fitFilter(fit, pod("p", { extra: { "example.com/gpu": "2" } }), gw, "n")!.reasons).toEqual(["Insufficient example.com/gpu"]);
    const ignoring = new NodeResourcesFit({ ignoredResources: ["example.com/gpu"] });
    expect(fitFilter(ignoring, pod("p", { extra: { "example.com/gpu": "2" } }), gw, "n")).toBeUndefined();
  });

  test("init containers count by their peak, sidecars add to everything after them", () => {
    const p = pod("p", {
      containers: [{ name: "app", image: "x", resources: { requests: { cpu: "1" } } }],
    });
    p.spec!.initContainers = [
      { name: "sidecar", image: "x", restartPolicy: "Always", resources: { requests: { cpu: "500m" } } },
      { name: "init", image: "x", resources: { requests: { cpu: "2" } } },
    ];
    // max(app 1 + sidecar 0.5, init 2 + sidecar 0.5) = 2.5
    expect(pi(p).resource().requests.milliCPU).toBe(2500);
  });
});

describe("NodeResourcesFit Score", () => {
  // 4 cores and 10000 bytes, with a pod of 1 core / 3000 bytes bound.
  const w = world([node("n", { cpu: "4", memory: "10000" })], [pod("a", { cpu: "1", memory: "3000", nodeName: "n" })]);
  const score = (plugin: NodeResourcesFit, p: ReturnType<typeof pod>, name = "n", ww = w) => {
    const s = state();
    plugin.preScore(s, pi(p));
    return plugin.score(s, pi(p), ww.info(name));
  };

  test("LeastAllocated: (capacity − requested) × 100 / capacity, averaged", () => {
    // cpu (4000−2000)·100/4000 = 50; memory (10000−5000)·100/10000 = 50
    expect(score(new NodeResourcesFit(), pod("p", { cpu: "1", memory: "2000" }))).toBe(50);
    const empty = world([node("e", { cpu: "4", memory: "10000" })]);
    // cpu 75, memory 90 → 82 (82.5 truncated)
    expect(score(new NodeResourcesFit(), pod("p", { cpu: "1", memory: "1000" }), "e", empty)).toBe(82);
  });

  test("LeastAllocated counts 100m / 200Mi for a pod that requests nothing", () => {
    const e = world([node("e", { cpu: "4", memory: "1Gi" })]);
    // cpu (4000−100)·100/4000 = 97; memory (1Gi−200Mi)·100/1Gi = 80 → 88
    expect(score(new NodeResourcesFit(), pod("p"), "e", e)).toBe(88);
  });

  test("MostAllocated: requested × 100 / capacity, averaged", () => {
    const e = world([node("e", { cpu: "4", memory: "10000" })]);
    // cpu 25, memory 10 → 17
    expect(score(new NodeResourcesFit({ scoringStrategy: { type: "MostAllocated" } }), pod("p", { cpu: "1", memory: "1000" }), "e", e)).toBe(17);
    expect(mostRequestedScore(5000, 4000)).toBe(100);
    expect(leastRequestedScore(5000, 4000)).toBe(0);
  });

  test("RequestedToCapacityRatio: the shape (scores 0–10 scaled to 0–100) at each utilization, weighted and rounded", () => {
    const e = world([node("e", { cpu: "4", memory: "10000" })]);
    const plugin = new NodeResourcesFit({
      scoringStrategy: {
        type: "RequestedToCapacityRatio",
        resources: [
          { name: "cpu", weight: 2 },
          { name: "memory", weight: 1 },
        ],
        requestedToCapacityRatio: {
          shape: [
            { utilization: 0, score: 10 },
            { utilization: 100, score: 0 },
          ],
        },
      },
    });
    // cpu 25% → 75, memory 10% → 90; (75·2 + 90) / 3 = 80
    expect(score(plugin, pod("p", { cpu: "1", memory: "1000" }), "e", e)).toBe(80);
    const f = brokenLinearFunction([
      { utilization: 10, score: 0 },
      { utilization: 60, score: 50 },
      { utilization: 100, score: 100 },
    ]);
    expect([f(0), f(10), f(35), f(60), f(80), f(100)]).toEqual([0, 0, 25, 50, 75, 100]);
  });
});

describe("NodeResourcesBalancedAllocation", () => {
  const w = world([node("n", { cpu: "4", memory: "10000", extra: { "ephemeral-storage": "100" } })], [pod("a", { cpu: "1", memory: "3000", nodeName: "n" })]);
  const ba = new NodeResourcesBalancedAllocation();
  const score = (p: ReturnType<typeof pod>, plugin = ba) => {
    const s = state();
    expect(plugin.preScore(s, pi(p))).toBeUndefined();
    return plugin.score(s, pi(p), w.info("n"));
  };

  test("equal fractions score 100; two fractions score (1 − |f1 − f2| / 2) × 100", () => {
    expect(score(pod("p", { cpu: "1", memory: "2000" }))).toBe(100);
    // cpu 2000/4000 = 0.5, memory 3000/10000 = 0.3 → std 0.1 → 90
    expect(score(pod("p", { cpu: "1" }))).toBe(90);
  });

  test("three resources use the population standard deviation", () => {
    const three = new NodeResourcesBalancedAllocation({
      resources: [
        { name: "cpu", weight: 1 },
        { name: "memory", weight: 1 },
        { name: "ephemeral-storage", weight: 1 },
      ],
    });
    // fractions 0.5, 0.3, 0.2 → std 0.1247 → 87
    expect(score(pod("p", { cpu: "1", extra: { "ephemeral-storage": "20" } }), three)).toBe(87);
    expect(balancedResourceScorer([1, 1, 1], [2, 2, 2])).toBe(100);
  });

  test("a best-effort pod is not scored (PreScore Skip)", () => {
    expect(ba.preScore(state(), pi(pod("p")))!.code).toBe(Code.Skip);
  });
});
