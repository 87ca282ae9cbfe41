// The shape of KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as nodeagent reads it:
// global settings and profiles, each with plugins enabled/disabled per extension point and plugin
// arguments. Defaults and validation are in config.ts.

export const EXTENSION_POINTS = [
  "preEnqueue",
  "queueSort",
  "preFilter",
  "filter",
  "postFilter",
  "preScore",
  "score",
  "reserve",
  "permit",
  "preBind",
  "bind",
  "postBind",
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export interface PluginRef {
  name: string;
  /** Score weight; 0 or unset means 1. */
  weight?: number;
}

export interface PluginSet {
  enabled: PluginRef[];
  disabled: PluginRef[];
}

export type PluginsConfig = Record<ExtensionPoint | "multiPoint", PluginSet>;

export interface Profile {
  schedulerName: string;
  /** Overrides the global percentageOfNodesToScore for this profile. */
  percentageOfNodesToScore?: number;
  plugins: PluginsConfig;
  /** Plugin name → its args (already defaulted). */
  pluginConfig: Map<string, unknown>;
}

export interface SchedulerConfig {
  /** 0 = adaptive (50% − nodes/125, at least 5%). */
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: Profile[];
}

export function emptyPlugins(): PluginsConfig {
  const p = {} as PluginsConfig;
  for (const k of [...EXTENSION_POINTS, "multiPoint"] as const) p[k] = { enabled: [], disabled: [] };
  return p;
}
