// The framework's status handling, with fake plugins: what stops an extension point, what is
// remembered, what becomes an error; PreFilterResult intersection; Score normalisation bounds and
// weights; Unreserve in reverse order; Permit's Wait with allow and timeout; Bind's Skip chain;
// multiPoint expansion.
import { describe, expect, test } from "bun:test";
import type { Pod } from "kubernetes-types/core/v1";
import { mergeWithDefaults } from "../../src/scheduler/config/config";
import { emptyPlugins, type PluginsConfig, type Profile } from "../../src/scheduler/config/types";
import { CycleState } from "../../src/scheduler/framework/cycle-state";
import type { Handle, NodeScore, Plugin, PluginFactory } from "../../src/scheduler/framework/interface";
import type { AttemptResult } from "../../src/scheduler/framework/result";
import { Framework } from "../../src/scheduler/framework/runtime";
import { Code, Status, type MaybeStatus } from "../../src/scheduler/framework/status";
import type { PodInfo } from "../../src/scheduler/model/pod-info";
import { InMemoryCluster } from "../../src/scheduler/cluster";
import { DefaultBinder } from "../../src/scheduler/plugins/default-binder";
import { PrioritySort } from "../../src/scheduler/plugins/priority-sort";
import { inTreeRegistry } from "../../src/scheduler/plugins/registry";
import { Scheduler } from "../../src/scheduler/scheduler";
import { FakeClock } from "../../src/util/clock";
import { node, pi, pod, world } from "./fixtures";

/** A plugin made of the methods given (so it implements exactly those extension points). */
function plugin(name: string, methods: Record<string, unknown>): PluginFactory {
  return () => Object.assign({ name }, methods) as Plugin;
}

function profile(plugins: Partial<PluginsConfig>, base = emptyPlugins()): Profile {
  return { schedulerName: "default-scheduler", plugins: { ...base, ...plugins }, pluginConfig: new Map() };
}

const enabled = (...names: string[]) => ({ enabled: names.map((name) => ({ name })), disabled: [] });
const BASE: Record<string, PluginFactory> = { PrioritySort: () => new PrioritySort(), DefaultBinder: (_a, h) => new DefaultBinder(h) };

function framework(extra: Record<string, PluginFactory>, plugins: Partial<PluginsConfig>, handle = world([node("n")]).handle): Framework {
  const registry = new Map([...inTreeRegistry(), ...Object.entries({ ...BASE, ...extra })]);
  return new Framework(profile({ queueSort: enabled("PrioritySort"), bind: enabled("DefaultBinder"), ...plugins }), registry, {
    clock: handle.clock,
    client: handle.client,
    snapshot: () => handle.snapshot(),
    random: () => 0,
    nominatedPodsForNode: () => [],
    clearNomination: () => {},
    background: () => {},
  });
}

const U = (msg: string) => new Status(Code.Unschedulable, [msg]);
const UU = (msg: string) => new Status(Code.UnschedulableAndUnresolvable, [msg]);

describe("PreFilter", () => {
  test("Unschedulable is remembered while the others still run; UnschedulableAndUnresolvable stops at once", () => {
    const ran: string[] = [];
    const pf = (name: string, s: MaybeStatus) => plugin(name, { preFilter: () => (ran.push(name), s) });
    let f = framework({ A: pf("A", U("a says no")), B: pf("B", undefined) }, { preFilter: enabled("A", "B") });
    let r = f.runPreFilterPlugins(new CycleState(), pi(pod("p")), []);
    expect([r.status?.code, r.status?.plugin, ran]).toEqual([Code.Unschedulable, "A", ["A", "B"]]);
    ran.length = 0;
    f = framework({ A: pf("A", UU("a never")), B: pf("B", undefined) }, { preFilter: enabled("A", "B") });
    r = f.runPreFilterPlugins(new CycleState(), pi(pod("p")), []);
    expect([r.status?.code, ran]).toEqual([Code.UnschedulableAndUnresolvable, ["A"]]);
  });

  test("any other code is an error naming the plugin", () => {
    const f = framework({ A: plugin("A", { preFilter: () => new Status(Code.Wait, ["huh"]) }) }, { preFilter: enabled("A") });
    const r = f.runPreFilterPlugins(new CycleState(), pi(pod("p")), []);
    expect([r.status?.code, r.status?.message()]).toEqual([Code.Error, 'running PreFilter plugin "A": huh']);
  });

  test("PreFilterResults are intersected; an empty intersection names the plugins", () => {
    const names = (...n: string[]) => ({ nodeNames: new Set(n) });
    let f = framework(
      { A: plugin("A", { preFilter: () => names("n1", "n2") }), B: plugin("B", { preFilter: () => names("n2", "n3") }) },
      { preFilter: enabled("A", "B") },
    );
    expect([...f.runPreFilterPlugins(new CycleState(), pi(pod("p")), []).nodeNames!]).toEqual(["n2"]);
    f = framework({ A: plugin("A", { preFilter: () => names("n1") }), B: plugin("B", { preFilter: () => names("n3") }) }, { preFilter: enabled("A", "B") });
    const r = f.runPreFilterPlugins(new CycleState(), pi(pod("p")), []);
    expect([r.status?.code, r.status?.message()]).toEqual([Code.UnschedulableAndUnresolvable, "node(s) didn't satisfy plugin(s) [A B] simultaneously"]);
  });

  test("Skip at PreFilter skips the plugin's Filter", () => {
    let filtered = false;
    const f = framework(
      { A: plugin("A", { preFilter: () => new Status(Code.Skip), filter: () => ((filtered = true), U("no")) }) },
      { preFilter: enabled("A"), filter: enabled("A") },
    );
    const s = new CycleState();
    const w = world([node("n")]);
    f.runPreFilterPlugins(s, pi(pod("p")), []);
    expect(f.runFilterPlugins(s, pi(pod("p")), w.info("n"))).toBeUndefined();
    expect(filtered).toBe(false);
  });
});

describe("Filter, Score", () => {
  const w = world([node("n1"), node("n2")]);

  test("Filter stops at the first rejection; a non-rejection code becomes an error", () => {
    const ran: string[] = [];
    const fp = (name: string, s: MaybeStatus) => plugin(name, { filter: () => (ran.push(name), s) });
    let f = framework({ A: fp("A", undefined), B: fp("B", U("b says no")), C: fp("C", undefined) }, { filter: enabled("A", "B", "C") });
    const s = f.runFilterPlugins(new CycleState(), pi(pod("p")), w.info("n1"))!;
    expect([s.code, s.plugin, ran]).toEqual([Code.Unschedulable, "B", ["A", "B"]]);
    f = framework({ A: fp("A", new Status(Code.Wait, ["later"])) }, { filter: enabled("A") });
    const e = f.runFilterPlugins(new CycleState(), pi(pod("p")), w.info("n1"))!;
    expect([e.code, e.message()]).toEqual([Code.Error, 'running "A" filter plugin: later']);
  });

  test("scores are normalised, weighted and summed; a score outside [0, 100] is an error; PreScore Skip skips Score", () => {
    const sp = (name: string, raw: Record<string, number>, normalize?: (s: NodeScore[]) => void) =>
      plugin(name, {
        score: (_s: CycleState, _p: PodInfo, ni: { name: string }) => raw[ni.name]!,
        ...(normalize ? { normalizeScore: (_s: CycleState, _p: PodInfo, l: NodeScore[]) => normalize(l) } : {}),
      });
    const f = framework(
      { A: sp("A", { n1: 10, n2: 20 }, (l) => l.forEach((x) => (x.score *= 5))), B: sp("B", { n1: 7, n2: 3 }) },
      {
        score: {
          enabled: [
            { name: "A", weight: 2 },
            { name: "B", weight: 3 },
          ],
          disabled: [],
        },
      },
    );
    const out = f.runScorePlugins(new CycleState(), pi(pod("p")), w.snapshot.list());
    if (out instanceof Status) throw new Error(out.message());
    // n1: 50×2 + 7×3 = 121; n2: 100×2 + 3×3 = 209
    expect([...out.totals]).toEqual([121, 209]);
    const bad = framework({ A: sp("A", { n1: 101, n2: 0 }) }, { score: enabled("A") });
    const e = bad.runScorePlugins(new CycleState(), pi(pod("p")), w.snapshot.list()) as Status;
    expect(e.message()).toContain('plugin "A" returns an invalid score 101, it should in the range of [0, 100] after normalizing');
    const skipped = framework(
      { A: plugin("A", { preScore: () => new Status(Code.Skip), score: () => 100 }), B: sp("B", { n1: 1, n2: 2 }) },
      { preScore: enabled("A"), score: enabled("A", "B") },
    );
    const st = new CycleState();
    skipped.runPreScorePlugins(st, pi(pod("p")), w.snapshot.list());
    const r = skipped.runScorePlugins(st, pi(pod("p")), w.snapshot.list());
    if (r instanceof Status) throw new Error(r.message());
    expect([...r.totals]).toEqual([1, 2]);
  });
});

describe("the scheduling and binding cycles", () => {
  function run(extra: Record<string, PluginFactory>, plugins: Partial<PluginsConfig>, clock = new FakeClock()) {
    const results: AttemptResult[] = [];
    const registry = new Map(Object.entries({ ...BASE, ...extra }));
    const s = new Scheduler({
      config: {
        percentageOfNodesToScore: 0,
        podInitialBackoffSeconds: 1,
        podMaxBackoffSeconds: 10,
        profiles: [profile({ queueSort: enabled("PrioritySort"), bind: enabled("DefaultBinder"), ...plugins })],
      },
      clock,
      registry,
      onAttempt: (r) => results.push(r),
    });
    s.setClient(new InMemoryCluster(s));
    s.onNodeAdd(node("n"));
    const p: Pod = pod("p");
    s.onPodAdd(p);
    return { s, results, clock, p };
  }

  test("a Reserve failure calls Unreserve on every reserve plugin, in reverse order, and forgets the pod", async () => {
    const calls: string[] = [];
    const rp = (name: string, s: MaybeStatus) =>
      plugin(name, { reserve: () => (calls.push(`reserve ${name}`), s), unreserve: () => calls.push(`unreserve ${name}`) });
    const { s, results } = run({ R1: rp("R1", undefined), R2: rp("R2", U("r2 says no")), R3: rp("R3", undefined) }, { reserve: enabled("R1", "R2", "R3") });
    expect(s.scheduleNext()).toBe(true);
    await s.settle();
    expect(calls).toEqual(["reserve R1", "reserve R2", "unreserve R3", "unreserve R2", "unreserve R1"]);
    expect(results[0]!.outcome).toBe("Unschedulable");
    expect(results[0]!.message).toBe("0/1 nodes are available: 1 r2 says no.");
    expect(s.cache.pods()).toHaveLength(0);
  });

  test("Permit Wait: the binding cycle waits until allowed", async () => {
    let handle!: Handle;
    const { s, results, p } = run(
      { P: (_a, h) => ((handle = h), Object.assign({ name: "P" }, { permit: () => ({ status: new Status(Code.Wait), timeoutMs: 10_000 }) })) },
      { permit: enabled("P") },
    );
    s.scheduleNext();
    await Bun.sleep(0);
    expect(results).toHaveLength(0);
    // The pod counts on its node while it waits.
    expect(s.cache.isAssumedPod(p)).toBe(true);
    handle.getWaitingPod(p.metadata!.uid!)!.allow("P");
    await s.settle();
    expect([results[0]!.outcome, results[0]!.node]).toEqual(["Scheduled", "n"]);
  });

  test("Permit Wait times out: rejected, unreserved, and back to the queue", async () => {
    const unreserved: string[] = [];
    const { s, results, clock, p } = run(
      {
        P: plugin("P", { permit: () => ({ status: new Status(Code.Wait), timeoutMs: 5000 }) }),
        R: plugin("R", { reserve: () => undefined, unreserve: () => unreserved.push("R") }),
      },
      { permit: enabled("P"), reserve: enabled("R") },
    );
    s.scheduleNext();
    await clock.advance(4999);
    expect(results).toHaveLength(0);
    await clock.advance(1);
    await s.settle();
    expect(results[0]!.outcome).toBe("Unschedulable");
    expect(results[0]!.message).toBe("0/1 nodes are available: 1 rejected due to timeout after waiting 5s at plugin P.");
    expect(unreserved).toEqual(["R"]);
    expect(s.cache.isAssumedPod(p)).toBe(false);
    expect(s.queue.get(p.metadata!.uid!)?.queue).toBe("Unschedulable");
  });

  test("Bind: a plugin that Skips hands over to the next", async () => {
    const bound: string[] = [];
    const { s, results } = run(
      {
        Skipper: plugin("Skipper", { bind: async () => (bound.push("Skipper"), new Status(Code.Skip)) }),
        Real: plugin("Real", { bind: async () => (bound.push("Real"), undefined) }),
      },
      { bind: enabled("Skipper", "Real") },
    );
    s.scheduleNext();
    await s.settle();
    expect(bound).toEqual(["Skipper", "Real"]);
    expect(results[0]!.outcome).toBe("Scheduled");
  });

  test("a Bind error forgets the assumed pod and reports a SchedulerError", async () => {
    const { s, results, p } = run({ Broken: plugin("Broken", { bind: async () => new Status(Code.Error, ["apiserver gone"]) }) }, { bind: enabled("Broken") });
    s.scheduleNext();
    await s.settle();
    expect([results[0]!.outcome, results[0]!.reason, results[0]!.message]).toEqual([
      "SchedulerError",
      "SchedulerError",
      'running Bind plugin "Broken": apiserver gone',
    ]);
    expect(s.cache.isAssumedPod(p)).toBe(false);
  });
});

describe("profiles", () => {
  test("multiPoint joins a plugin to every point it implements, unless disabled there", () => {
    const both = plugin("Both", { filter: () => undefined, score: () => 0 });
    const f = framework({ Both: both }, { multiPoint: enabled("Both"), score: { enabled: [], disabled: [{ name: "Both" }] } });
    expect(f.filterPlugins.map((p) => p.name)).toEqual(["Both"]);
    expect(f.scorePlugins).toHaveLength(0);
  });

  test("the default profile has the default plugins in upstream's order and weights", () => {
    const f = framework({}, { ...mergeWithDefaults(emptyPlugins()) }, world([node("n")]).handle);
    expect(f.filterPlugins.map((p) => p.name)).toEqual([
      "NodeUnschedulable",
      "NodeName",
      "TaintToleration",
      "NodeAffinity",
      "NodePorts",
      "NodeResourcesFit",
      "PodTopologySpread",
      "InterPodAffinity",
    ]);
    expect(f.scorePlugins.map((p) => `${p.name}:${f.scorePluginWeight.get(p.name)}`)).toEqual([
      "TaintToleration:3",
      "NodeAffinity:2",
      "NodeResourcesFit:1",
      "PodTopologySpread:2",
      "InterPodAffinity:2",
      "NodeResourcesBalancedAllocation:1",
      "ImageLocality:1",
    ]);
    expect(f.postFilterPlugins.map((p) => p.name)).toEqual(["DefaultPreemption"]);
  });

  test("a plugin that does not exist, or does not implement the point, is an error", () => {
    expect(() => framework({}, { filter: enabled("Nope") })).toThrow('FilterPlugin "Nope" does not exist');
    expect(() => framework({ S: plugin("S", { score: () => 0 }) }, { filter: enabled("S") })).toThrow('plugin "S" does not extend FilterPlugin plugin');
    expect(() => framework({}, { bind: enabled() })).toThrow("at least one bind plugin is needed");
  });
});
