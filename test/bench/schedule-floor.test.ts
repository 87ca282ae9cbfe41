// The pieces `make bench-schedule` compares with: the floor must do the work it claims (fit, score,
// count the pod, rotate the start like numFeasibleNodesToFind's search), and the placement check must
// catch a scheduler that ignored a constraint — otherwise a ratio compares unequal work.
import { describe, expect, test } from "bun:test";
import type { Node } from "kubernetes-types/core/v1";
import { FloorScheduler } from "../../bench/schedule-floor";
import {
  initNodeName,
  makeNode,
  placementProblem,
  POD_ANTI_AFFINITY,
  SCHEDULING_BASIC,
  TOPOLOGY_SPREADING,
  type Workload,
} from "../../bench/schedule-workloads";

const nodes = (n: number): Node[] => Array.from({ length: n }, (_, i) => makeNode(i));

describe("FloorScheduler", () => {
  test("fills a node up to its cpu (4 CPUs / 100m = 40 pods), then finds no room", () => {
    const f = new FloorScheduler(nodes(1), 1);
    const placed = Array.from({ length: 41 }, (_, i) => f.schedule(SCHEDULING_BASIC.measuredPod("ns", i)));
    expect(placed.slice(0, 40).every((n) => n === "node-0")).toBe(true);
    expect(placed[40]).toBeUndefined();
  });

  test("picks the least allocated of the feasible nodes it looks at", () => {
    const f = new FloorScheduler(nodes(3), 3);
    for (let i = 0; i < 5; i++) f.addBound(SCHEDULING_BASIC.initPod("ns", i, "node-0"));
    for (let i = 5; i < 8; i++) f.addBound(SCHEDULING_BASIC.initPod("ns", i, "node-2"));
    expect(f.schedule(SCHEDULING_BASIC.measuredPod("ns", 0))).toBe("node-1");
  });

  test("looks at numToFind feasible nodes from where the last search stopped", () => {
    // One node to find: each pod takes the next node, as kube-scheduler's rotating start index does.
    const f = new FloorScheduler(nodes(3), 1);
    const placed = Array.from({ length: 4 }, (_, i) => f.schedule(SCHEDULING_BASIC.measuredPod("ns", i)));
    expect(placed).toEqual(["node-0", "node-1", "node-2", "node-0"]);
  });
});

describe("placementProblem", () => {
  const w = (shape: Workload["shape"], init: number, measured: number): Workload => ({ shape, nodes: 6, init, measured, api: false });

  test("accepts one anti-affine pod a node, and names two on one node", () => {
    const good = new Map([
      ["pod-0", "node-0"],
      ["pod-1", "node-1"],
    ]);
    expect(placementProblem(w(POD_ANTI_AFFINITY, 0, 2), good)).toBeUndefined();
    expect(
      placementProblem(
        w(POD_ANTI_AFFINITY, 0, 2),
        new Map([
          ["pod-0", "node-3"],
          ["pod-1", "node-3"],
        ]),
      ),
    ).toBe("2 anti-affine pods on only 1 nodes");
  });

  test("names a zone skew above maxSkew 5 (nodes 0 and 3 are both in moon-1)", () => {
    const skewed = new Map(Array.from({ length: 6 }, (_, i) => [`pod-${i}`, i % 2 ? "node-0" : "node-3"]));
    expect(placementProblem(w(TOPOLOGY_SPREADING, 0, 6), skewed)).toBe("zones hold 6/0/0 measured pods, skew above 5");
    const spread = new Map(Array.from({ length: 6 }, (_, i) => [`pod-${i}`, `node-${i}`]));
    expect(placementProblem(w(TOPOLOGY_SPREADING, 0, 6), spread)).toBeUndefined();
  });

  test("counts the init pods bound to a node against its room", () => {
    // 6 nodes, 36 init pods: node-0 holds 6 of them; 35 more there make 41 > 40.
    const crowded = new Map(Array.from({ length: 35 }, (_, i) => [`pod-${i}`, "node-0"]));
    expect(initNodeName(6, 6)).toBe("node-0");
    expect(placementProblem(w(SCHEDULING_BASIC, 36, 35), crowded)).toBe("node-0 has 41 pods, room for 40");
    expect(placementProblem(w(SCHEDULING_BASIC, 0, 35), crowded)).toBeUndefined();
  });
});
