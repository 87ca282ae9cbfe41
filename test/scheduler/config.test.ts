// KubeSchedulerConfiguration: v1 defaults, merging a profile's plugins with the defaults, plugin
// args, and errors at their line and column.
import { describe, expect, test } from "bun:test";
import { ConfigError, defaultConfig, mergePluginSet, parseSchedulerConfig } from "../../src/scheduler/config/config";
import { Scheduler } from "../../src/scheduler/scheduler";
import { FakeClock } from "../../src/util/clock";

const HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

function frameworks(yaml: string, warnings: string[] = []) {
  const config = parseSchedulerConfig(HEAD + yaml, "sched.yaml", (w) => warnings.push(w));
  return { config, scheduler: new Scheduler({ config, clock: new FakeClock() }) };
}

describe("KubeSchedulerConfiguration", () => {
  test("defaults: one default-scheduler profile, backoff 1 s / 10 s, adaptive percentage", () => {
    const c = parseSchedulerConfig(HEAD, "sched.yaml");
    expect([c.podInitialBackoffSeconds, c.podMaxBackoffSeconds, c.percentageOfNodesToScore]).toEqual([1, 10, 0]);
    expect(c.profiles.map((p) => p.schedulerName)).toEqual(["default-scheduler"]);
    expect(c.profiles[0]!.pluginConfig.get("NodeResourcesFit")).toEqual({
      scoringStrategy: {
        type: "LeastAllocated",
        resources: [
          { name: "cpu", weight: 1 },
          { name: "memory", weight: 1 },
        ],
      },
    });
    expect(defaultConfig().profiles[0]!.plugins.multiPoint.enabled.length).toBe(14);
  });

  test("a profile re-weights a default plugin in place, disables another at one point, and adds a scoring strategy", () => {
    const { scheduler } = frameworks(`profiles:
- schedulerName: packer
  percentageOfNodesToScore: 40
  plugins:
    multiPoint:
      enabled:
      - name: NodeResourcesFit
        weight: 5
    score:
      disabled:
      - name: ImageLocality
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`);
    const f = scheduler.profiles.get("packer")!;
    expect(f.percentageOfNodesToScore).toBe(40);
    expect(f.scorePlugins.map((p) => p.name)).not.toContain("ImageLocality");
    expect(f.scorePluginWeight.get("NodeResourcesFit")).toBe(5);
    expect(f.scorePlugins.map((p) => p.name).indexOf("NodeResourcesFit")).toBe(2);
    expect((f.plugins.get("NodeResourcesFit") as unknown as { scorer: { strategy: string } }).scorer.strategy).toBe("MostAllocated");
  });

  test("disabled: '*' at multiPoint leaves only what the profile enables", () => {
    const { scheduler } = frameworks(`profiles:
- schedulerName: bare
  plugins:
    multiPoint:
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeResourcesFit}]
      disabled: [{name: "*"}]
`);
    const f = scheduler.profiles.get("bare")!;
    expect(f.filterPlugins.map((p) => p.name)).toEqual(["NodeResourcesFit"]);
    expect(f.postFilterPlugins).toHaveLength(0);
  });

  test("volume plugins are accepted and left out with a warning", () => {
    const warnings: string[] = [];
    const { scheduler } = frameworks(
      `profiles:
- plugins:
    filter:
      enabled: [{name: VolumeBinding}]
`,
      warnings,
    );
    expect(warnings[0]).toContain("plugin VolumeBinding is not supported");
    expect(scheduler.profiles.get("default-scheduler")!.filterPlugins.map((p) => p.name)).not.toContain("VolumeBinding");
  });

  test("errors carry file:line:column and the field", () => {
    const err = (yaml: string) => {
      try {
        parseSchedulerConfig(HEAD + yaml, "sched.yaml");
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    expect(err("profiles:\n- schedulerName: a\n  pluginz: {}\n")).toBe(
      'sched.yaml:5:3: profiles[0].pluginz: unknown field "pluginz" (known: schedulerName, percentageOfNodesToScore, plugins, pluginConfig)',
    );
    expect(err("percentageOfNodesToScore: 120\n")).toBe("sched.yaml:3:27: percentageOfNodesToScore: Invalid value: 120: not in valid range [0, 100]");
    expect(err("profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy: {type: Random}\n")).toContain(
      'sched.yaml:7:31: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Random"',
    );
    expect(err("profiles:\n- {}\n- {}\n")).toContain('Duplicate value: "default-scheduler"');
    expect(err("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n")).toContain("must be greater than or equal to PodInitialBackoffSeconds");
  });
});

test("mergePluginSet: re-configured defaults keep their place, new plugins come after", () => {
  const merged = mergePluginSet(
    { enabled: [{ name: "A" }, { name: "B", weight: 1 }, { name: "C" }], disabled: [] },
    { enabled: [{ name: "X" }, { name: "B", weight: 7 }], disabled: [{ name: "C" }] },
  );
  expect(merged.enabled).toEqual([{ name: "A" }, { name: "B", weight: 7 }, { name: "X" }]);
});
