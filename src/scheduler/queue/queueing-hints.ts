// QueueingHints (KEP-4247): which cluster events may make an unschedulable pod schedulable. Each
// plugin registers the events that may help the pods it rejected, optionally with a function that
// looks at the change; only the plugins that rejected a pod are asked about it.
import type { Pod } from "kubernetes-types/core/v1";
import { isWildCard, matchClusterEvents, type ClusterEvent } from "../framework/events";
import type { QueuedPodInfo, QueueingHintFn } from "../framework/interface";

/** A plugin's interest in an event, with its hint. */
export interface QueueHint {
  plugin: string;
  event: ClusterEvent;
  hint?: QueueingHintFn;
}

/** queueingStrategy: where a pod goes after an event (or after its failed attempt). */
export const enum Strategy {
  Skip = 0,
  AfterBackoff = 1,
  Immediately = 2,
}

function schedulerName(p: QueuedPodInfo): string {
  return p.podInfo.pod.spec?.schedulerName || "default-scheduler";
}

export class QueueingHints {
  private readonly hints: ReadonlyMap<string, readonly QueueHint[]>;
  private readonly eventsByPlugin = new Map<string, ClusterEvent[]>();
  private readonly onHintError: ((plugin: string, pod: Pod, err: unknown) => void) | undefined;

  /** `hints`: profile name → the events its plugins registered. */
  constructor(hints: ReadonlyMap<string, readonly QueueHint[]>, onHintError?: (plugin: string, pod: Pod, err: unknown) => void) {
    this.hints = hints;
    this.onHintError = onHintError;
    for (const list of this.hints.values()) {
      for (const h of list) {
        const events = this.eventsByPlugin.get(h.plugin) ?? [];
        events.push(h.event);
        this.eventsByPlugin.set(h.plugin, events);
      }
    }
  }

  /** The events a plugin registered in any profile (what may lift the gate of a pod it gates). */
  pluginEvents(plugin: string): ClusterEvent[] {
    return this.eventsByPlugin.get(plugin) ?? [];
  }

  /** Whether any plugin registered an event this one matches; wildcards interest everyone. */
  isEventOfInterest(event: ClusterEvent): boolean {
    if (isWildCard(event)) return true;
    for (const hints of this.hints.values()) for (const h of hints) if (matchClusterEvents(h.event, event)) return true;
    return false;
  }

  /** isPodWorthRequeuing: asks only the hints of the plugins that rejected the pod. */
  isPodWorthRequeuing(p: QueuedPodInfo, event: ClusterEvent, oldObj: unknown, newObj: unknown): Strategy {
    const rejectors = new Set([...p.unschedulablePlugins, ...p.pendingPlugins]);
    if (rejectors.size === 0) return Strategy.AfterBackoff;
    if (isWildCard(event)) {
      // A wildcard carrying a pod (ForceActivate) is meant for that pod only.
      const target = newObj as Pod | undefined;
      if (target && target.metadata?.uid !== p.podInfo.uid) return Strategy.Skip;
      return Strategy.AfterBackoff;
    }
    const hints = this.hints.get(schedulerName(p));
    if (!hints) return Strategy.AfterBackoff;
    let strategy = Strategy.Skip;
    for (const h of hints) {
      if (!rejectors.has(h.plugin) || !matchClusterEvents(h.event, event)) continue;
      let hint: "Queue" | "QueueSkip" = "Queue";
      if (h.hint) {
        try {
          hint = h.hint(p.podInfo.pod, oldObj, newObj);
        } catch (e) {
          this.onHintError?.(h.plugin, p.podInfo.pod, e);
          hint = "Queue";
        }
      }
      if (hint === "QueueSkip") continue;
      if (p.pendingPlugins.has(h.plugin)) return Strategy.Immediately;
      if (p.pendingPlugins.size === 0) return Strategy.AfterBackoff;
      strategy = Strategy.AfterBackoff;
    }
    return strategy;
  }
}
