// The single-node plugins, image locality, and the queue sort, on hand-computed cases.
import { describe, expect, test } from "bun:test";
import type { NodeScore, QueuedPodInfo } from "../../src/scheduler/framework/interface";
import { Code, Status } from "../../src/scheduler/framework/status";
import { ImageLocality, normalizedImageName } from "../../src/scheduler/plugins/image-locality";
import { NodeAffinity } from "../../src/scheduler/plugins/node-affinity";
import { NodeName } from "../../src/scheduler/plugins/node-name";
import { NodePorts } from "../../src/scheduler/plugins/node-ports";
import { NodeUnschedulable } from "../../src/scheduler/plugins/node-unschedulable";
import { PrioritySort } from "../../src/scheduler/plugins/priority-sort";
import { SchedulingGates } from "../../src/scheduler/plugins/scheduling-gates";
import { TaintToleration } from "../../src/scheduler/plugins/taint-toleration";
import { node, pi, pod, state, world } from "./fixtures";

const MB = 1024 * 1024;

function scoreAll(
  plugin: { preScore?: Function; score: Function; normalizeScore?: Function },
  p: ReturnType<typeof pod>,
  w: ReturnType<typeof world>,
): Record<string, number> {
  const s = state();
  const info = pi(p);
  const nodes = w.snapshot.list();
  const pre = plugin.preScore?.call(plugin, s, info, nodes) as Status | undefined;
  if (pre) throw new Error(`PreScore said ${pre.codeName()}`);
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: plugin.score.call(plugin, s, info, n) as number }));
  plugin.normalizeScore?.call(plugin, s, info, scores);
  return Object.fromEntries(scores.map((x) => [x.name, x.score]));
}

describe("TaintToleration", () => {
  const tt = new TaintToleration();
  const gpu = { key: "dedicated", value: "gpu", effect: "NoSchedule" };
  const w = world([node("a", { taints: [gpu] }), node("b", { taints: [{ key: "soft", effect: "PreferNoSchedule" }] })]);

  test("Filter: an untolerated NoSchedule taint rejects, naming the taint in the detail", () => {
    const s = tt.filter(state(), pi(pod("p")), w.info("a"))!;
    expect(s.code).toBe(Code.UnschedulableAndUnresolvable);
    expect(s.reasons).toEqual(["node(s) had untolerated taint(s)"]);
    expect(s.detail).toBe("untolerated taint dedicated=gpu:NoSchedule");
  });

  test("Filter: Equal with the value, Exists without a key, and PreferNoSchedule never filters", () => {
    expect(
      tt.filter(state(), pi(pod("p", { tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }] })), w.info("a")),
    ).toBeUndefined();
    expect(tt.filter(state(), pi(pod("p", { tolerations: [{ operator: "Exists" }] })), w.info("a"))).toBeUndefined();
    expect(tt.filter(state(), pi(pod("p", { tolerations: [{ key: "dedicated", value: "cpu", effect: "NoSchedule" }] })), w.info("a"))).toBeDefined();
    expect(tt.filter(state(), pi(pod("p")), w.info("b"))).toBeUndefined();
  });

  test("Score: intolerable PreferNoSchedule taints, reversed: fewest scores 100", () => {
    const soft = (k: string) => ({ key: k, effect: "PreferNoSchedule" });
    const sw = world([node("two", { taints: [soft("x"), soft("y")] }), node("one", { taints: [soft("x")] }), node("none")]);
    expect(scoreAll(tt, pod("p"), sw)).toEqual({ two: 0, one: 50, none: 100 });
    // Tolerating x leaves one intolerable taint on "two" only: 0 and 100.
    expect(scoreAll(tt, pod("p", { tolerations: [{ key: "x", operator: "Exists" }] }), sw)).toEqual({ two: 0, one: 100, none: 100 });
  });
});

describe("NodeAffinity", () => {
  const na = new NodeAffinity();
  const w = world([
    node("a", { labels: { zone: "z1", disk: "ssd", gen: "5" } }),
    node("b", { labels: { zone: "z1", gen: "3" } }),
    node("c", { labels: { zone: "z2" } }),
  ]);
  const filterAll = (p: ReturnType<typeof pod>, plugin = na) => {
    const s = state();
    const pre = plugin.preFilter(s, pi(p));
    if (pre instanceof Status) return pre.codeName();
    return Object.fromEntries(w.snapshot.list().map((n) => [n.name, plugin.filter(s, pi(p), n)?.reasons[0] ?? "ok"]));
  };

  test("no nodeSelector and no required affinity: PreFilter says Skip", () => {
    expect(filterAll(pod("p"))).toBe("Skip");
  });

  test("nodeSelector and required terms (In, NotIn, Exists, Gt), terms ORed", () => {
    const bad = "node(s) didn't match Pod's node affinity/selector";
    expect(filterAll(pod("p", { nodeSelector: { zone: "z1" } }))).toEqual({ a: "ok", b: "ok", c: bad });
    const required = (exprs: Array<{ key: string; operator: string; values?: string[] }>[]) => ({
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: exprs.map((e) => ({ matchExpressions: e })) } },
    });
    expect(filterAll(pod("p", { affinity: required([[{ key: "gen", operator: "Gt", values: ["4"] }]]) }))).toEqual({ a: "ok", b: bad, c: bad });
    expect(filterAll(pod("p", { affinity: required([[{ key: "disk", operator: "Exists" }], [{ key: "zone", operator: "NotIn", values: ["z1"] }]]) }))).toEqual({
      a: "ok",
      b: bad,
      c: "ok",
    });
  });

  test("metadata.name in matchFields narrows the nodes (PreFilterResult); a term naming no node in common conflicts", () => {
    const byName = (terms: string[][][]) => ({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: terms.map((t) => ({ matchFields: t.map((values) => ({ key: "metadata.name", operator: "In", values })) })),
        },
      },
    });
    const r = na.preFilter(state(), pi(pod("p", { affinity: byName([[["a"]], [["c"]]]) })));
    expect(r && !(r instanceof Status) ? [...r.nodeNames].sort() : r).toEqual(["a", "c"]);
    const conflict = na.preFilter(state(), pi(pod("p", { affinity: byName([[["a"], ["b"]]]) }))) as Status;
    expect([conflict.code, conflict.reasons]).toEqual([Code.UnschedulableAndUnresolvable, ["pod affinity terms conflict"]]);
  });

  test("addedAffinity is enforced with its own reason", () => {
    const enforced = new NodeAffinity({
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["z2"] }] }] },
      },
    });
    const other = "node(s) didn't match scheduler-enforced node affinity";
    expect(filterAll(pod("p"), enforced)).toEqual({ a: other, b: other, c: "ok" });
  });

  test("Score: the weights of the preferred terms a node matches, normalised to the best", () => {
    const p = pod("p", {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 5, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["z1"] }] } },
            { weight: 3, preference: { matchExpressions: [{ key: "disk", operator: "In", values: ["ssd"] }] } },
          ],
        },
      },
    });
    // a: 8, b: 5, c: 0 → 100, 62, 0
    expect(scoreAll(na, p, w)).toEqual({ a: 100, b: 62, c: 0 });
    expect(na.preScore(state(), pi(pod("p")))!.code).toBe(Code.Skip);
  });
});

describe("NodeUnschedulable, NodeName, NodePorts", () => {
  test("a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable", () => {
    const w = world([node("a", { unschedulable: true })]);
    const s = new NodeUnschedulable().filter(state(), pi(pod("p")), w.info("a"))!;
    expect([s.code, s.reasons]).toEqual([Code.UnschedulableAndUnresolvable, ["node(s) were unschedulable"]]);
    const tolerant = pod("p", { tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] });
    expect(new NodeUnschedulable().filter(state(), pi(tolerant), w.info("a"))).toBeUndefined();
  });

  test("spec.nodeName other than the node rejects", () => {
    const w = world([node("a"), node("b")]);
    const p = pod("p", { nodeName: "b" });
    expect(new NodeName().filter(state(), pi(p), w.info("a"))!.reasons).toEqual(["node(s) didn't match the requested node name"]);
    expect(new NodeName().filter(state(), pi(p), w.info("b"))).toBeUndefined();
  });

  test("host ports: a port in use on the node (same protocol) rejects; none wanted means Skip", () => {
    const w = world([node("a")], [pod("web", { nodeName: "a", hostPorts: [8080] })]);
    const np = new NodePorts();
    const run = (p: ReturnType<typeof pod>) => {
      const s = state();
      const pre = np.preFilter(s, pi(p));
      return pre instanceof Status ? pre.codeName() : (np.filter(s, pi(p), w.info("a"))?.reasons[0] ?? "ok");
    };
    expect(run(pod("p", { hostPorts: [8080] }))).toBe("node(s) didn't have free ports for the requested pod ports");
    expect(run(pod("p", { hostPorts: [9090] }))).toBe("ok");
    const udp = pod("p");
    udp.spec!.containers[0]!.ports = [{ containerPort: 8080, hostPort: 8080, protocol: "UDP" }];
    expect(run(udp)).toBe("ok");
    expect(run(pod("p"))).toBe("Skip");
  });
});

describe("ImageLocality", () => {
  const nginx = { names: ["docker.io/library/nginx:1.25", "nginx:1.25"], sizeBytes: 300 * MB };

  test("the image's size scaled by the share of nodes holding it, between 23 MiB and 1000 MiB per container", () => {
    const w = world([node("a", { images: [nginx] }), node("b")]);
    const il = new ImageLocality(w.handle);
    // 300 MiB × 1/2 = 150 MiB → 100 × (150 − 23) / (1000 − 23) = 12
    expect(il.score(state(), pi(pod("p", { image: "nginx:1.25" })), w.info("a"))).toBe(12);
    expect(il.score(state(), pi(pod("p", { image: "nginx:1.25" })), w.info("b"))).toBe(0);
    const both = world([node("a", { images: [nginx] }), node("b", { images: [nginx] })]);
    // 300 MiB on every node → 100 × 277 / 977 = 28
    expect(new ImageLocality(both.handle).score(state(), pi(pod("p", { image: "nginx:1.25" })), both.info("a"))).toBe(28);
  });

  test("an image without a tag means :latest", () => {
    expect(normalizedImageName("nginx")).toBe("nginx:latest");
    expect(normalizedImageName("localhost:5000/app")).toBe("localhost:5000/app:latest");
    expect(normalizedImageName("nginx:1.25")).toBe("nginx:1.25");
  });
});

describe("SchedulingGates and PrioritySort", () => {
  test("a gated pod is held with the gates listed as Go prints a slice", () => {
    const s = new SchedulingGates().preEnqueue(pod("p", { schedulingGates: ["a.io/x", "b.io/y"] }))!;
    expect([s.code, s.message()]).toEqual([Code.UnschedulableAndUnresolvable, "waiting for scheduling gates: [a.io/x b.io/y]"]);
    expect(new SchedulingGates().preEnqueue(pod("p"))).toBeUndefined();
  });

  test("higher priority first, then the earlier arrival", () => {
    const q = (p: ReturnType<typeof pod>, timestamp: number, seq: number) => ({ podInfo: pi(p), timestamp, seq }) as QueuedPodInfo;
    const ps = new PrioritySort();
    expect(ps.less(q(pod("a", { priority: 10 }), 2, 2), q(pod("b", { priority: 5 }), 1, 1))).toBe(true);
    expect(ps.less(q(pod("a"), 1, 5), q(pod("b"), 2, 1))).toBe(true);
    expect(ps.less(q(pod("a"), 1, 2), q(pod("b"), 1, 1))).toBe(false);
  });
});
