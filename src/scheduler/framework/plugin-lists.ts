// Which plugins run at each extension point of a profile (pkg/scheduler/framework/runtime/framework.go
// NewFramework): the point's own enabled list, multiPoint expanded into every point a plugin
// implements, the checks and their messages, and the score weights.
import { EXTENSION_POINTS, type ExtensionPoint, type PluginRef, type Profile } from "../config/types";
import type {
  ClusterEventWithHint,
  EnqueueExtensions,
  BindPlugin,
  FilterPlugin,
  PermitPlugin,
  Plugin,
  PostBindPlugin,
  PostFilterPlugin,
  PreBindPlugin,
  PreEnqueuePlugin,
  PreFilterPlugin,
  PreScorePlugin,
  QueueSortPlugin,
  ReservePlugin,
  ScorePlugin,
} from "./interface";

/** Does the plugin implement the extension point (the Go interface check)? */
const IMPLEMENTS: Record<ExtensionPoint, (p: Plugin) => boolean> = {
  preEnqueue: (p) => typeof (p as Partial<PreEnqueuePlugin>).preEnqueue === "function",
  queueSort: (p) => typeof (p as Partial<QueueSortPlugin>).less === "function",
  preFilter: (p) => typeof (p as Partial<PreFilterPlugin>).preFilter === "function",
  filter: (p) => typeof (p as Partial<FilterPlugin>).filter === "function",
  postFilter: (p) => typeof (p as Partial<PostFilterPlugin>).postFilter === "function",
  preScore: (p) => typeof (p as Partial<PreScorePlugin>).preScore === "function",
  score: (p) => typeof (p as Partial<ScorePlugin>).score === "function",
  reserve: (p) => typeof (p as Partial<ReservePlugin>).reserve === "function" && typeof (p as Partial<ReservePlugin>).unreserve === "function",
  permit: (p) => typeof (p as Partial<PermitPlugin>).permit === "function",
  preBind: (p) => typeof (p as Partial<PreBindPlugin>).preBind === "function",
  bind: (p) => typeof (p as Partial<BindPlugin>).bind === "function",
  postBind: (p) => typeof (p as Partial<PostBindPlugin>).postBind === "function",
};

/** The Go interface names, for error messages ("FilterPlugin \"X\" does not exist"). */
const INTERFACE_NAMES: Record<ExtensionPoint, string> = {
  preEnqueue: "PreEnqueuePlugin",
  queueSort: "QueueSortPlugin",
  preFilter: "PreFilterPlugin",
  filter: "FilterPlugin",
  postFilter: "PostFilterPlugin",
  preScore: "PreScorePlugin",
  score: "ScorePlugin",
  reserve: "ReservePlugin",
  permit: "PermitPlugin",
  preBind: "PreBindPlugin",
  bind: "BindPlugin",
  postBind: "PostBindPlugin",
};

/** One point's own enabled list: each plugin must exist, implement the point and appear once. */
function pluginList(plugins: ReadonlyMap<string, Plugin>, point: ExtensionPoint, refs: readonly PluginRef[]): Plugin[] {
  const out: Plugin[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    const p = plugins.get(ref.name);
    if (!p) throw new Error(`${INTERFACE_NAMES[point]} ${JSON.stringify(ref.name)} does not exist`);
    if (!IMPLEMENTS[point](p)) throw new Error(`plugin ${JSON.stringify(ref.name)} does not extend ${INTERFACE_NAMES[point]} plugin`);
    if (seen.has(ref.name)) throw new Error(`plugin ${JSON.stringify(ref.name)} already registered as ${JSON.stringify(INTERFACE_NAMES[point])}`);
    seen.add(ref.name);
    out.push(p);
  }
  return out;
}

/** The plugins of each extension point, in the order they run; throws upstream's message for a bad list. */
export function pluginsByPoint(profile: Profile, plugins: ReadonlyMap<string, Plugin>): Record<ExtensionPoint, Plugin[]> {
  const lists = {} as Record<ExtensionPoint, Plugin[]>;
  for (const point of EXTENSION_POINTS) lists[point] = pluginList(plugins, point, profile.plugins[point].enabled);
  if (profile.plugins.multiPoint.enabled.length > 0) expandMultiPoint(profile, plugins, lists);
  return lists;
}

/**
 * expandMultiPointPlugins: a multiPoint plugin joins every point it implements unless disabled
 * there. Order: plugins re-configured at the point itself (as ordered there), then multiPoint ones,
 * then the point's own others.
 */
function expandMultiPoint(profile: Profile, plugins: ReadonlyMap<string, Plugin>, lists: Record<ExtensionPoint, Plugin[]>): void {
  for (const point of EXTENSION_POINTS) {
    const set = profile.plugins[point];
    const disabled = new Set(set.disabled.map((p) => p.name));
    if (disabled.has("*")) continue;
    const enabled = set.enabled.map((p) => p.name);
    const multi: string[] = [];
    const overrides = new Set<string>();
    for (const ref of profile.plugins.multiPoint.enabled) {
      const p = plugins.get(ref.name);
      if (!p) throw new Error(`${INTERFACE_NAMES[point]} ${JSON.stringify(ref.name)} does not exist`);
      if (!IMPLEMENTS[point](p) || disabled.has(ref.name)) continue;
      if (enabled.includes(ref.name)) {
        overrides.add(ref.name);
        continue;
      }
      if (multi.includes(ref.name)) throw new Error(`plugin ${JSON.stringify(ref.name)} already registered as ${JSON.stringify(INTERFACE_NAMES[point])}`);
      multi.push(ref.name);
    }
    const order = [...enabled.filter((n) => overrides.has(n)), ...multi, ...enabled.filter((n) => !overrides.has(n))];
    lists[point] = order.map((n) => plugins.get(n)!);
  }
}

/** getScoreWeights: the point's own weight wins over multiPoint's; 0 means 1. */
export function scoreWeights(plugins: ReadonlyMap<string, Plugin>, scorePlugins: readonly Plugin[], refs: readonly PluginRef[]): Map<string, number> {
  const weights = new Map<string, number>();
  for (const ref of refs) {
    const p = plugins.get(ref.name);
    if (!p || !IMPLEMENTS.score(p) || weights.has(ref.name)) continue;
    if ((ref.weight ?? 0) < 0) throw new Error(`score plugin ${JSON.stringify(ref.name)} has a negative weight ${ref.weight}`);
    weights.set(ref.name, ref.weight || 1);
  }
  for (const p of scorePlugins) if (!weights.has(p.name)) weights.set(p.name, 1);
  return weights;
}

/** The events each plugin registered (EnqueueExtensions), with the plugin's name, for the queue's hints. */
export function registeredEvents(plugins: Iterable<Plugin>): Array<{ plugin: string } & ClusterEventWithHint> {
  const out: Array<{ plugin: string } & ClusterEventWithHint> = [];
  for (const p of plugins) {
    const ext = p as Partial<EnqueueExtensions>;
    if (typeof ext.eventsToRegister !== "function") continue;
    for (const e of ext.eventsToRegister()) out.push({ plugin: p.name, ...e });
  }
  return out;
}
