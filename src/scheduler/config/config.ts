// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) from YAML: strict decoding (an unknown
// field is an error, with its file:line:column), the v1 defaults (default_plugins.go: every default
// plugin enabled through multiPoint, with its weight; defaults.go: backoff 1 s/10 s, adaptive
// percentageOfNodesToScore, plugin args), and mergePlugins: a profile's multiPoint list overrides or
// disables default plugins in place, extension points add to or disable them.
import { parseManifest, type Locator } from "../../manifest";
import { Names, UNSUPPORTED_PLUGINS } from "../plugins/names";
import { emptyPlugins, EXTENSION_POINTS, type PluginRef, type PluginSet, type PluginsConfig, type Profile, type SchedulerConfig } from "./types";
import { ConfigError as BadInput } from "../../util";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

/** default_plugins.go getDefaultPlugins, without the volume plugins; the order is the execution order. */
export const DEFAULT_MULTIPOINT: readonly PluginRef[] = [
  { name: Names.SchedulingGates },
  { name: Names.PrioritySort },
  { name: Names.NodeUnschedulable },
  { name: Names.NodeName },
  { name: Names.TaintToleration, weight: 3 },
  { name: Names.NodeAffinity, weight: 2 },
  { name: Names.NodePorts },
  { name: Names.NodeResourcesFit, weight: 1 },
  { name: Names.PodTopologySpread, weight: 2 },
  { name: Names.InterPodAffinity, weight: 2 },
  { name: Names.DefaultPreemption },
  { name: Names.NodeResourcesBalancedAllocation, weight: 1 },
  { name: Names.ImageLocality, weight: 1 },
  { name: Names.DefaultBinder },
];

const DEFAULT_RESOURCES = [
  { name: "cpu", weight: 1 },
  { name: "memory", weight: 1 },
];

/** A KubeSchedulerConfiguration that cannot be used: bad input (src/util ConfigError, exit 2). */
export class ConfigError extends BadInput {
  override name = "ConfigError";
}

type Json = Record<string, unknown>;

/** Reads fields of the decoded document, failing with file:line:column and the field path. */
class Reader {
  constructor(
    private readonly file: string,
    private readonly locate: Locator,
  ) {}

  /** Fails at the field's value, or at its key (an unknown field). */
  fail(path: string, message: string, part: "key" | "value" = "value"): never {
    const p = this.locate(path, part);
    throw new ConfigError(`${this.file}:${p.line}:${p.column}: ${path ? `${path}: ` : ""}${message}`);
  }

  object(v: unknown, path: string, allowed: readonly string[]): Json {
    if (v === undefined || v === null) return {};
    if (typeof v !== "object" || Array.isArray(v)) this.fail(path, `must be a mapping, not ${Array.isArray(v) ? "a list" : typeof v}`);
    const o = v as Json;
    for (const k of Object.keys(o))
      if (!allowed.includes(k)) this.fail(join(path, k), `unknown field ${JSON.stringify(k)} (known: ${allowed.join(", ")})`, "key");
    return o;
  }

  list(v: unknown, path: string): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, "must be a list");
    return v;
  }

  string(v: unknown, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") this.fail(path, `must be a string, not ${typeof v}`);
    return v;
  }

  int(v: unknown, path: string, min: number, max: number): number | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v)) this.fail(path, `must be a whole number, not ${JSON.stringify(v)}`);
    if (v < min || v > max) this.fail(path, `Invalid value: ${v}: not in valid range [${min}, ${max}]`);
    return v;
  }

  bool(v: unknown, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean") this.fail(path, "must be true or false");
    return v;
  }
}

function join(path: string, key: string | number): string {
  return typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key;
}

/** mergePluginSet (v1 default_plugins.go). */
export function mergePluginSet(defaults: PluginSet, custom: PluginSet): PluginSet {
  const disabled = new Set(custom.disabled.map((p) => p.name));
  const customByName = new Map(custom.enabled.map((p, i) => [p.name, i] as const));
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabled.has("*")) {
    for (const d of defaults.enabled) {
      if (disabled.has(d.name)) continue;
      const i = customByName.get(d.name);
      if (i !== undefined) {
        // Re-configured default plugin: updated in place, keeping its position.
        enabled.push(custom.enabled[i]!);
        replaced.add(i);
      } else {
        enabled.push(d);
      }
    }
  }
  custom.enabled.forEach((p, i) => {
    if (!replaced.has(i)) enabled.push(p);
  });
  return { enabled, disabled: custom.disabled.map((p) => ({ name: p.name })) };
}

/** The profile's plugins merged with the defaults. */
export function mergeWithDefaults(custom: PluginsConfig): PluginsConfig {
  const out = emptyPlugins();
  out.multiPoint = mergePluginSet({ enabled: [...DEFAULT_MULTIPOINT], disabled: [] }, custom.multiPoint);
  for (const point of EXTENSION_POINTS) out[point] = mergePluginSet({ enabled: [], disabled: [] }, custom[point]);
  return out;
}

/** The v1 defaults of the plugin arguments nodeagent knows. */
export function defaultPluginArgs(name: string, args: Json | undefined): unknown {
  const a: Json = { ...(args ?? {}) };
  delete a.kind;
  delete a.apiVersion;
  switch (name) {
    case Names.NodeResourcesFit: {
      const ss = { ...((a.scoringStrategy as Json | undefined) ?? {}) } as Json;
      ss.type ??= "LeastAllocated";
      const resources = (ss.resources as Array<{ name: string; weight?: number }> | undefined) ?? [];
      ss.resources = resources.length === 0 ? DEFAULT_RESOURCES : resources.map((r) => ({ name: r.name, weight: r.weight || 1 }));
      a.scoringStrategy = ss;
      return a;
    }
    case Names.NodeResourcesBalancedAllocation: {
      const resources = (a.resources as Array<{ name: string; weight?: number }> | undefined) ?? [];
      a.resources = resources.length === 0 ? DEFAULT_RESOURCES : resources.map((r) => ({ name: r.name, weight: r.weight || 1 }));
      return a;
    }
    case Names.PodTopologySpread:
      a.defaultingType ??= "System";
      return a;
    case Names.InterPodAffinity:
      a.hardPodAffinityWeight ??= 1;
      return a;
    case Names.DefaultPreemption:
      a.minCandidateNodesPercentage ??= 10;
      a.minCandidateNodesAbsolute ??= 100;
      return a;
    default:
      return Object.keys(a).length > 0 ? a : undefined;
  }
}

/** The args fields each plugin accepts (besides kind and apiVersion). */
const ARGS_FIELDS: Record<string, readonly string[]> = {
  [Names.NodeResourcesFit]: ["ignoredResources", "ignoredResourceGroups", "scoringStrategy"],
  [Names.NodeResourcesBalancedAllocation]: ["resources"],
  [Names.PodTopologySpread]: ["defaultConstraints", "defaultingType"],
  [Names.InterPodAffinity]: ["hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"],
  [Names.NodeAffinity]: ["addedAffinity"],
  [Names.DefaultPreemption]: ["minCandidateNodesPercentage", "minCandidateNodesAbsolute"],
};

function readArgs(r: Reader, name: string, v: unknown, path: string): Json {
  const fields = ARGS_FIELDS[name];
  if (!fields) return r.object(v, path, ["kind", "apiVersion"]);
  const a = r.object(v, path, ["kind", "apiVersion", ...fields]);
  const kind = r.string(a.kind, join(path, "kind"));
  if (kind !== undefined && kind !== `${name}Args`) r.fail(join(path, "kind"), `must be ${name}Args, not ${kind}`);
  if (name === Names.NodeResourcesFit && a.scoringStrategy !== undefined) {
    const sp = join(path, "scoringStrategy");
    const ss = r.object(a.scoringStrategy, sp, ["type", "resources", "requestedToCapacityRatio"]);
    const type = r.string(ss.type, join(sp, "type"));
    if (type !== undefined && !["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"].includes(type)) {
      r.fail(join(sp, "type"), `Unsupported value: ${JSON.stringify(type)}: supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`);
    }
    readResources(r, ss.resources, join(sp, "resources"));
    if (ss.requestedToCapacityRatio !== undefined) {
      const rp = join(sp, "requestedToCapacityRatio");
      const rtcr = r.object(ss.requestedToCapacityRatio, rp, ["shape"]);
      let last = -1;
      r.list(rtcr.shape, join(rp, "shape")).forEach((pt, i) => {
        const pp = join(join(rp, "shape"), i);
        const o = r.object(pt, pp, ["utilization", "score"]);
        const u = r.int(o.utilization, join(pp, "utilization"), 0, 100) ?? 0;
        r.int(o.score, join(pp, "score"), 0, 10);
        if (u <= last) r.fail(join(pp, "utilization"), "Invalid value: utilization values must be sorted in increasing order");
        last = u;
      });
    } else if (type === "RequestedToCapacityRatio") {
      r.fail(sp, "requestedToCapacityRatio: Required value: the shape is required for RequestedToCapacityRatio");
    }
  }
  if (name === Names.NodeResourcesBalancedAllocation) readResources(r, a.resources, join(path, "resources"));
  if (name === Names.PodTopologySpread) {
    const t = r.string(a.defaultingType, join(path, "defaultingType"));
    if (t !== undefined && t !== "System" && t !== "List")
      r.fail(join(path, "defaultingType"), `Unsupported value: ${JSON.stringify(t)}: supported values: "System", "List"`);
    if (t !== "List" && r.list(a.defaultConstraints, join(path, "defaultConstraints")).length > 0) {
      r.fail(join(path, "defaultConstraints"), 'Invalid value: when .defaultingType is "System", .defaultConstraints must be empty');
    }
  }
  if (name === Names.InterPodAffinity) {
    r.int(a.hardPodAffinityWeight, join(path, "hardPodAffinityWeight"), 0, 100);
    r.bool(a.ignorePreferredTermsOfExistingPods, join(path, "ignorePreferredTermsOfExistingPods"));
  }
  if (name === Names.DefaultPreemption) {
    r.int(a.minCandidateNodesPercentage, join(path, "minCandidateNodesPercentage"), 0, 100);
    r.int(a.minCandidateNodesAbsolute, join(path, "minCandidateNodesAbsolute"), 0, Number.MAX_SAFE_INTEGER);
  }
  return a;
}

function readResources(r: Reader, v: unknown, path: string): void {
  r.list(v, path).forEach((res, i) => {
    const o = r.object(res, join(path, i), ["name", "weight"]);
    if (!r.string(o.name, join(join(path, i), "name"))) r.fail(join(join(path, i), "name"), "Required value");
    r.int(o.weight, join(join(path, i), "weight"), 0, 100);
  });
}

function readPluginSet(r: Reader, v: unknown, path: string, warn: (m: string) => void): PluginSet {
  const o = r.object(v, path, ["enabled", "disabled"]);
  const refs = (key: "enabled" | "disabled"): PluginRef[] =>
    r.list(o[key], join(path, key)).flatMap((item, i) => {
      const p = join(join(path, key), i);
      const ref = r.object(item, p, key === "enabled" ? ["name", "weight"] : ["name"]);
      const name = r.string(ref.name, join(p, "name"));
      if (!name) r.fail(join(p, "name"), "Required value");
      const weight = r.int(ref.weight, join(p, "weight"), 0, 100);
      if (UNSUPPORTED_PLUGINS.has(name) && key === "enabled") {
        warn(`${path}: plugin ${name} is not supported by nodeagent (no volume or resource claim objects); it is left out`);
        return [];
      }
      return [weight === undefined ? { name } : { name, weight }];
    });
  return { enabled: refs("enabled"), disabled: refs("disabled") };
}

function readProfile(r: Reader, v: unknown, path: string, warn: (m: string) => void): Profile {
  const o = r.object(v, path, ["schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"]);
  const schedulerName = r.string(o.schedulerName, join(path, "schedulerName")) ?? DEFAULT_SCHEDULER_NAME;
  const percentage = r.int(o.percentageOfNodesToScore, join(path, "percentageOfNodesToScore"), 0, 100);
  const pp = join(path, "plugins");
  const po = r.object(o.plugins, pp, [...EXTENSION_POINTS, "multiPoint"]);
  const custom = emptyPlugins();
  for (const point of [...EXTENSION_POINTS, "multiPoint"] as const) custom[point] = readPluginSet(r, po[point], join(pp, point), warn);
  const given = new Map<string, Json>();
  r.list(o.pluginConfig, join(path, "pluginConfig")).forEach((item, i) => {
    const p = join(join(path, "pluginConfig"), i);
    const c = r.object(item, p, ["name", "args"]);
    const name = r.string(c.name, join(p, "name"));
    if (!name) r.fail(join(p, "name"), "Required value");
    if (given.has(name)) r.fail(join(p, "name"), `Duplicate value: ${JSON.stringify(name)} (repeated config for plugin ${name})`);
    if (UNSUPPORTED_PLUGINS.has(name)) {
      warn(`${p}: args of ${name} are ignored: the plugin is not supported by nodeagent`);
      return;
    }
    given.set(name, readArgs(r, name, c.args, join(p, "args")));
  });
  const plugins = mergeWithDefaults(custom);
  const pluginConfig = new Map<string, unknown>();
  const names = new Set([...given.keys(), ...[...EXTENSION_POINTS, "multiPoint" as const].flatMap((pt) => plugins[pt].enabled.map((e) => e.name))]);
  for (const name of names) {
    const args = defaultPluginArgs(name, given.get(name));
    if (args !== undefined) pluginConfig.set(name, args);
  }
  return { schedulerName, percentageOfNodesToScore: percentage, plugins, pluginConfig };
}

export function defaultProfile(schedulerName = DEFAULT_SCHEDULER_NAME): Profile {
  const plugins = mergeWithDefaults(emptyPlugins());
  const pluginConfig = new Map<string, unknown>();
  for (const ref of plugins.multiPoint.enabled) {
    const args = defaultPluginArgs(ref.name, undefined);
    if (args !== undefined) pluginConfig.set(ref.name, args);
  }
  return { schedulerName, plugins, pluginConfig };
}

export function defaultConfig(): SchedulerConfig {
  return { percentageOfNodesToScore: 0, podInitialBackoffSeconds: 1, podMaxBackoffSeconds: 10, profiles: [defaultProfile()] };
}

/**
 * The profiles a scheduler named `schedulerName` runs, as kube-scheduler picks them: that profile of
 * a configuration file (an error when it has none), or the default profile under that name when there
 * is no file; without a name, every profile of the configuration.
 */
export function profilesFor(config: SchedulerConfig, fromFile: boolean, schedulerName: string | undefined): SchedulerConfig {
  if (schedulerName === undefined) return config;
  if (!fromFile) return { ...config, profiles: [defaultProfile(schedulerName)] };
  const profile = config.profiles.find((p) => p.schedulerName === schedulerName);
  if (!profile)
    throw new ConfigError(
      `--scheduler-name ${JSON.stringify(schedulerName)}: the configuration has no such profile (profiles: ${config.profiles.map((p) => p.schedulerName).join(", ")})`,
    );
  return { ...config, profiles: [profile] };
}

const IGNORED_TOP_LEVEL = [
  "parallelism",
  "clientConnection",
  "leaderElection",
  "healthzBindAddress",
  "metricsBindAddress",
  "enableProfiling",
  "enableContentionProfiling",
  "delayCacheUntilActive",
  "featureGates",
];

/** Parses a KubeSchedulerConfiguration; throws ConfigError with file:line:column. */
export function parseSchedulerConfig(text: string, file: string, warn: (message: string) => void = () => {}): SchedulerConfig {
  const parsed = parseManifest(text);
  const problem = parsed.problems[0];
  if (problem) {
    const message =
      problem.code === "empty"
        ? "empty configuration"
        : problem.message.replace(/the kubelet reads only the first document/, "a configuration is one document");
    throw new ConfigError(`${file}:${problem.line}:${problem.column}: ${message}`);
  }
  const r = new Reader(file, parsed.locate);
  const top = r.object(parsed.value, "", [
    "apiVersion",
    "kind",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    ...IGNORED_TOP_LEVEL,
  ]);
  const apiVersion = r.string(top.apiVersion, "apiVersion");
  if (apiVersion !== "kubescheduler.config.k8s.io/v1") r.fail("apiVersion", `must be kubescheduler.config.k8s.io/v1, not ${JSON.stringify(apiVersion ?? "")}`);
  const kind = r.string(top.kind, "kind");
  if (kind !== "KubeSchedulerConfiguration") r.fail("kind", `must be KubeSchedulerConfiguration, not ${JSON.stringify(kind ?? "")}`);
  if (r.list(top.extenders, "extenders").length > 0) warn("extenders are not supported by nodeagent; they are ignored");
  for (const k of IGNORED_TOP_LEVEL) if (top[k] !== undefined && k !== "parallelism") warn(`${k} does not apply to nodeagent schedule; it is ignored`);
  const percentage = r.int(top.percentageOfNodesToScore, "percentageOfNodesToScore", 0, 100) ?? 0;
  const initial = r.int(top.podInitialBackoffSeconds, "podInitialBackoffSeconds", 1, 86_400) ?? 1;
  const max = r.int(top.podMaxBackoffSeconds, "podMaxBackoffSeconds", 1, 86_400) ?? 10;
  if (max < initial) r.fail("podMaxBackoffSeconds", `Invalid value: ${max}: must be greater than or equal to PodInitialBackoffSeconds`);
  const list = r.list(top.profiles, "profiles");
  const profiles = list.length === 0 ? [defaultProfile()] : list.map((p, i) => readProfile(r, p, join("profiles", i), warn));
  const seen = new Set<string>();
  profiles.forEach((p, i) => {
    if (seen.has(p.schedulerName)) r.fail(join(join("profiles", i), "schedulerName"), `Duplicate value: ${JSON.stringify(p.schedulerName)}`);
    seen.add(p.schedulerName);
  });
  return { percentageOfNodesToScore: percentage, podInitialBackoffSeconds: initial, podMaxBackoffSeconds: max, profiles };
}
