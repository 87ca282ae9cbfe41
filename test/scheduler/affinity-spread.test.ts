// PodTopologySpread and InterPodAffinity on hand-computed cases.
import { describe, expect, test } from "bun:test";
import type { NodeScore } from "../../src/scheduler/framework/interface";
import { Code, Status } from "../../src/scheduler/framework/status";
import { InterPodAffinity } from "../../src/scheduler/plugins/interpodaffinity/plugin";
import { PodTopologySpread } from "../../src/scheduler/plugins/podtopologyspread/plugin";
import { node, pi, pod, state, world } from "./fixtures";

const web = { app: "web" };
const zone = (z: string) => ({ "topology.kubernetes.io/zone": z });

/** n1, n2 in z1; n3 in z2; n4 in z3; nolabel has no zone. Web pods: 2 on n1, 1 on n3. */
function cluster() {
  return world(
    [
      node("n1", { labels: zone("z1") }),
      node("n2", { labels: zone("z1") }),
      node("n3", { labels: zone("z2") }),
      node("n4", { labels: zone("z3") }),
      node("nolabel"),
    ],
    [
      pod("w1", { nodeName: "n1", labels: web }),
      pod("w2", { nodeName: "n1", labels: web }),
      pod("w3", { nodeName: "n3", labels: web }),
      pod("other", { nodeName: "n4", labels: { app: "db" } }),
    ],
  );
}

function filterAll(plugin: PodTopologySpread | InterPodAffinity, p: ReturnType<typeof pod>, w: ReturnType<typeof world>): string | Record<string, string> {
  const s = state();
  const pre = plugin.preFilter(s, pi(p));
  if (pre instanceof Status) return pre.codeName();
  return Object.fromEntries(
    w.snapshot.list().map((n) => {
      const st = plugin.filter(s, pi(p), n);
      return [n.name, st ? `${st.codeName()}: ${st.reasons.join(", ")}` : "ok"];
    }),
  );
}

function scoreAll(
  plugin: PodTopologySpread | InterPodAffinity,
  p: ReturnType<typeof pod>,
  w: ReturnType<typeof world>,
  names?: string[],
): string | Record<string, number> {
  const s = state();
  const nodes = w.snapshot.list().filter((n) => !names || names.includes(n.name));
  const pre = plugin.preScore(s, pi(p), nodes);
  if (pre) return pre.codeName();
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: plugin.score(s, pi(p), n) as number }));
  plugin.normalizeScore(s, pi(p), scores);
  return Object.fromEntries(scores.map((x) => [x.name, x.score]));
}

describe("PodTopologySpread", () => {
  const spread = (whenUnsatisfiable: string, extra: Record<string, unknown> = {}) => ({
    maxSkew: 1,
    topologyKey: "topology.kubernetes.io/zone",
    whenUnsatisfiable,
    labelSelector: { matchLabels: web },
    ...extra,
  });
  const SKEW = "Unschedulable: node(s) didn't match pod topology spread constraints";
  const MISSING = "UnschedulableAndUnresolvable: node(s) didn't match pod topology spread constraints (missing required label)";

  test("matching pods + 1 − the global minimum must not exceed maxSkew (z1=2, z2=1, z3=0)", () => {
    const w = cluster();
    const pts = new PodTopologySpread(w.handle);
    expect(filterAll(pts, pod("p", { labels: web, topologySpreadConstraints: [spread("DoNotSchedule")] }), w)).toEqual({
      n1: SKEW,
      n2: SKEW,
      n3: SKEW,
      n4: "ok",
      nolabel: MISSING,
    });
    // A pod that does not match its own selector does not add itself: z2 has 1 − 0 = 1.
    expect(filterAll(pts, pod("p", { topologySpreadConstraints: [spread("DoNotSchedule")] }), w)).toMatchObject({ n3: "ok", n4: "ok", n1: SKEW });
  });

  test("minDomains above the number of domains makes the global minimum 0", () => {
    const w = world(
      [node("a", { labels: zone("z1") }), node("b", { labels: zone("z2") })],
      [pod("w1", { nodeName: "a", labels: web }), pod("w2", { nodeName: "b", labels: web })],
    );
    const pts = new PodTopologySpread(w.handle);
    expect(filterAll(pts, pod("p", { labels: web, topologySpreadConstraints: [spread("DoNotSchedule")] }), w)).toEqual({ a: "ok", b: "ok" });
    expect(filterAll(pts, pod("p", { labels: web, topologySpreadConstraints: [spread("DoNotSchedule", { minDomains: 3 })] }), w)).toEqual({ a: SKEW, b: SKEW });
  });

  test("nodeAffinityPolicy Honor counts only nodes the pod could go to; Ignore counts all", () => {
    const w = cluster();
    const pts = new PodTopologySpread(w.handle);
    const away = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "NotIn", values: ["z3"] }] }],
        },
      },
    };
    // Honor (default): z3 is not counted, so the minimum is z2's 1 and n3 (z2) passes.
    expect(filterAll(pts, pod("p", { labels: web, affinity: away, topologySpreadConstraints: [spread("DoNotSchedule")] }), w)).toMatchObject({
      n1: SKEW,
      n3: "ok",
    });
    expect(
      filterAll(pts, pod("p", { labels: web, affinity: away, topologySpreadConstraints: [spread("DoNotSchedule", { nodeAffinityPolicy: "Ignore" })] }), w),
    ).toMatchObject({ n3: SKEW, n4: "ok" });
  });

  test("no constraints and no Services or controllers: Skip at PreFilter and PreScore", () => {
    const w = cluster();
    const pts = new PodTopologySpread(w.handle);
    expect(filterAll(pts, pod("p", { labels: web }), w)).toBe("Skip");
    expect(scoreAll(pts, pod("p", { labels: web }), w)).toBe("Skip");
  });

  test("Score, hostname: count × log(nodes + 2) + maxSkew − 1, then 100 × (max + min − score) / max", () => {
    const w = cluster();
    const pts = new PodTopologySpread(w.handle);
    const p = pod("p", { labels: web, topologySpreadConstraints: [{ ...spread("ScheduleAnyway"), topologyKey: "kubernetes.io/hostname" }] });
    // 4 nodes → weight ln 6 = 1.79; raw n1 2×1.79 → 4, n2 0, n3 1.79 → 2, n4 0 → 0, 100, 50, 100
    expect(scoreAll(pts, p, w, ["n1", "n2", "n3", "n4"])).toEqual({ n1: 0, n2: 100, n3: 50, n4: 100 });
  });

  test("Score, zone: domains counted over the filtered nodes, weight log(domains + 2)", () => {
    const w = cluster();
    const pts = new PodTopologySpread(w.handle);
    const p = pod("p", { labels: web, topologySpreadConstraints: [spread("ScheduleAnyway")] });
    // z1 = 2, z2 = 1, z3 = 0; weight ln 5 = 1.61 → raw n1 3, n2 3, n3 2, n4 0 → 0, 0, 33, 100
    expect(scoreAll(pts, p, w, ["n1", "n2", "n3", "n4"])).toEqual({ n1: 0, n2: 0, n3: 33, n4: 100 });
  });

  test("the default constraints take the selector of the Service that selects the pod", () => {
    const w = cluster();
    w.snapshot.workloadObjects.services.push({ metadata: { name: "web", namespace: "default" }, spec: { selector: web } });
    const pts = new PodTopologySpread(w.handle);
    // System defaults: hostname (maxSkew 3, weight ln 7) and zone (maxSkew 5, weight ln 5), ScheduleAnyway;
    // a node without a zone still gets the hostname part. Raw: n1 13, n2 9, n3 10, n4 6, nolabel 2.
    expect(scoreAll(pts, pod("p", { labels: web }), w)).toEqual({ n1: 15, n2: 46, n3: 38, n4: 69, nolabel: 100 });
  });
});

describe("InterPodAffinity", () => {
  const term = (labels: Record<string, string>, topologyKey: string) => ({ labelSelector: { matchLabels: labels }, topologyKey });

  test("required anti-affinity: nodes whose domain has a matching pod are Unschedulable", () => {
    const w = cluster();
    const ipa = new InterPodAffinity(w.handle);
    const p = pod("p", {
      labels: web,
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web, "kubernetes.io/hostname")] } },
    });
    const r = filterAll(ipa, p, w) as Record<string, string>;
    expect(r.n1).toBe("Unschedulable: node(s) didn't match pod anti-affinity rules");
    expect(r.n3).toBe("Unschedulable: node(s) didn't match pod anti-affinity rules");
    expect([r.n2, r.n4, r.nolabel]).toEqual(["ok", "ok", "ok"]);
  });

  test("an existing pod's anti-affinity keeps matching pods out of its whole domain", () => {
    const w = world(
      [node("n1", { labels: zone("z1") }), node("n2", { labels: zone("z1") }), node("n3", { labels: zone("z2") })],
      [
        pod("guard", {
          nodeName: "n1",
          affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web, "topology.kubernetes.io/zone")] } },
        }),
      ],
    );
    const ipa = new InterPodAffinity(w.handle);
    const EXISTING = "Unschedulable: node(s) didn't satisfy existing pods anti-affinity rules";
    expect(filterAll(ipa, pod("p", { labels: web }), w)).toEqual({ n1: EXISTING, n2: EXISTING, n3: "ok" });
    // Without anything matching or required, the plugin has nothing to do.
    expect(filterAll(ipa, pod("p", { labels: { app: "other" } }), w)).toBe("Skip");
  });

  test("required affinity: only domains with a matching pod; the first pod of a self-affine group goes anywhere", () => {
    const w = cluster();
    const ipa = new InterPodAffinity(w.handle);
    const toDb = pod("p", {
      affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "db" }, "topology.kubernetes.io/zone")] } },
    });
    const NO = "UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules";
    expect(filterAll(ipa, toDb, w)).toEqual({ n1: NO, n2: NO, n3: NO, n4: "ok", nolabel: NO });
    const first = pod("p", {
      labels: { app: "cache" },
      affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: "cache" }, "topology.kubernetes.io/zone")] } },
    });
    expect(filterAll(ipa, first, w)).toEqual({ n1: "ok", n2: "ok", n3: "ok", n4: "ok", nolabel: NO });
  });

  test("Score: preferred affinity adds its weight to the domain, anti-affinity subtracts; min–max normalised", () => {
    const w = world(
      [node("n1", { labels: zone("z1") }), node("n2", { labels: zone("z1") }), node("n3", { labels: zone("z2") })],
      [pod("db", { nodeName: "n3", labels: { app: "db" } }), pod("cache", { nodeName: "n1", labels: { app: "cache" } })],
    );
    const ipa = new InterPodAffinity(w.handle);
    const p = pod("p", {
      affinity: {
        podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ app: "db" }, "topology.kubernetes.io/zone") }] },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term({ app: "cache" }, "kubernetes.io/hostname") }],
        },
      },
    });
    // n1 −5, n2 0, n3 10 → (score + 5) / 15 × 100 → 0, 33, 100
    expect(scoreAll(ipa, p, w)).toEqual({ n1: 0, n2: 33, n3: 100 });
  });

  test("Score: an existing pod's required affinity to the incoming pod counts hardPodAffinityWeight", () => {
    const w = world(
      [node("n1", { labels: zone("z1") }), node("n2", { labels: zone("z2") })],
      [
        pod("fan", {
          nodeName: "n1",
          affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web, "topology.kubernetes.io/zone")] } },
        }),
      ],
    );
    expect(scoreAll(new InterPodAffinity(w.handle), pod("p", { labels: web }), w)).toEqual({ n1: 100, n2: 0 });
    expect(scoreAll(new InterPodAffinity(w.handle, { hardPodAffinityWeight: 0 }), pod("p", { labels: web }), w)).toBe("Skip");
  });

  test("namespaceSelector {} matches every namespace; a term without namespaces means the pod's own", () => {
    const w = world([node("n1"), node("n2")], [pod("w", { nodeName: "n1", namespace: "other", labels: web })]);
    const ipa = new InterPodAffinity(w.handle);
    const own = pod("p", { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term(web, "kubernetes.io/hostname")] } } });
    expect(filterAll(ipa, own, w)).toEqual({ n1: "ok", n2: "ok" });
    const all = pod("p", {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ ...term(web, "kubernetes.io/hostname"), namespaceSelector: {} }] } },
    });
    expect((filterAll(ipa, all, w) as Record<string, string>).n1).toBe("Unschedulable: node(s) didn't match pod anti-affinity rules");
  });
});

test("codes are what upstream names them", () => {
  expect(new Status(Code.UnschedulableAndUnresolvable).codeName()).toBe("UnschedulableAndUnresolvable");
});

test("PodTopologySpread's counts kept between cycles equal a fresh count after pods and nodes change", () => {
  const w = cluster();
  const pts = new PodTopologySpread(w.handle);
  const p = pod("p", {
    labels: web,
    topologySpreadConstraints: [
      { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "DoNotSchedule", labelSelector: { matchLabels: web } },
    ],
  });
  const counts = (plugin: PodTopologySpread) => {
    const s = state();
    plugin.preFilter(s, pi(p));
    const st = s.read<{ tpValueToMatchNum: Map<string, number>[]; minMatchNum: number[] }>("PreFilterPodTopologySpread")!;
    return { tp: Object.fromEntries(st.tpValueToMatchNum[0]!), min: st.minMatchNum[0] };
  };
  expect(counts(pts)).toEqual({ tp: { z1: 2, z2: 1, z3: 0 }, min: 0 });
  // A web pod lands on n4, a node joins z4, n3's pod goes, and n2 is relabelled into z3.
  w.cache.addPod(pod("w4", { nodeName: "n4", labels: web }));
  w.cache.addNode(node("n5", { labels: zone("z4") }));
  w.cache.removePod(w.cache.pods().find((x) => x.name === "w3")!.pod);
  w.cache.updateNode(node("n2", { labels: zone("z1") }), node("n2", { labels: zone("z3") }));
  w.cache.updateSnapshot(w.snapshot);
  const fresh = new PodTopologySpread(w.handle);
  expect(counts(pts)).toEqual(counts(fresh));
  expect(counts(pts)).toEqual({ tp: { z1: 2, z2: 0, z3: 1, z4: 0 }, min: 0 });
  // Only a pod change now: the incremental path (no node added or removed).
  w.cache.addPod(pod("w6", { nodeName: "n5", labels: web }));
  w.cache.updateSnapshot(w.snapshot);
  expect(counts(pts)).toEqual({ tp: { z1: 2, z2: 0, z3: 1, z4: 1 }, min: 0 });
});
