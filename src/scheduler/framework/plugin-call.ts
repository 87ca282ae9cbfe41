// How the framework runtime (runtime.ts) calls a plugin and reads its answer, as frameworkImpl does:
// a throw is an Error status, as a Go plugin's error return would be; at the points that may reject,
// a rejection names its plugin and anything else is an Error. And what PreFilter and Score return.
import type { NodeInfo } from "../model/node-info";
import type { ScorePlugin } from "./interface";
import { asStatus, Code, type MaybeStatus, Status } from "./status";

/** A plugin call whose throw becomes an Error status, as a Go plugin's error return would. */
export function guard<T>(call: () => T, onThrow: (s: Status) => T): T {
  try {
    return call();
  } catch (e) {
    return onThrow(asStatus(e));
  }
}

export async function guardAsync(call: () => Promise<MaybeStatus>): Promise<MaybeStatus> {
  try {
    return await call();
  } catch (e) {
    return asStatus(e);
  }
}

/** At points that may reject (Reserve, PreBind, Bind): a rejection names its plugin, anything else is an Error. */
export function rejectionOrError(point: string, plugin: string, s: Status): Status {
  if (s.isRejected()) return s.withPlugin(plugin);
  return new Status(Code.Error, [`running ${point} plugin ${JSON.stringify(plugin)}: ${s.message()}`], s.cause);
}

export interface PreFilterOutcome {
  /** The nodes worth filtering; undefined means all. */
  nodeNames: ReadonlySet<string> | undefined;
  status: MaybeStatus;
  /** Plugins that narrowed the nodes (pluginsWithNodes), or rejected. */
  unschedulablePlugins: Set<string>;
}

export interface ScoreOutcome {
  nodes: readonly NodeInfo[];
  /** Weighted total per node, in the order of `nodes`. */
  totals: Float64Array;
  plugins: readonly ScorePlugin[];
  /** Per plugin, per node: the score after NormalizeScore (before the weight). */
  normalized: Float64Array[];
  /** Per plugin, per node: the score before NormalizeScore; kept only when explaining. */
  raw?: Float64Array[];
}
