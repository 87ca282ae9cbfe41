// CycleState (k8s.io/kube-scheduler/framework cycle_state.go): what plugins share within one
// scheduling cycle of one pod. Values that implement clone() are copied by clone(), as StateData is,
// so preemption can simulate removing pods on a copy without touching the real cycle.
import type { NodeInfo } from "../model/node-info";
import type { PodInfo } from "../model/pod-info";
import type { CycleRecorder } from "./explain";
import type { MaybeStatus } from "./status";

/**
 * A Filter plugin as the cycle keeps it: interface.ts's FilterPlugin, written out structurally here
 * because FilterPlugin's methods take a CycleState, and the two files must not import each other.
 */
export interface CycleFilterPlugin {
  readonly name: string;
  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): MaybeStatus;
}

export interface StateData {
  clone(): StateData;
}

function isStateData(v: unknown): v is StateData {
  return typeof v === "object" && v !== null && typeof (v as StateData).clone === "function";
}

export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** PreFilter plugins that returned Skip: their Filter (and PreFilterExtensions) do not run. */
  skipFilterPlugins: ReadonlySet<string> = new Set();
  /** The Filter plugins to run this cycle (the profile's minus skipFilterPlugins), set after PreFilter. */
  filterPluginsToRun: readonly CycleFilterPlugin[] | undefined;
  /** PreScore plugins that returned Skip: their Score does not run. */
  skipScorePlugins: ReadonlySet<string> = new Set();
  /**
   * Set only on the real cycle of a pod when --explain is on; clones (preemption's dry runs) leave
   * it out, so what is recorded is what the scheduler decided, not its simulations.
   */
  recorder: CycleRecorder | undefined;

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, isStateData(v) ? v.clone() : v);
    c.skipFilterPlugins = this.skipFilterPlugins;
    c.filterPluginsToRun = this.filterPluginsToRun;
    c.skipScorePlugins = this.skipScorePlugins;
    return c;
  }
}
