// Pods that a Permit plugin asked to wait (runtime/waiting_pods_map.go). Each waiting plugin has a
// timer; the pod goes on when every one of them allowed it, and is rejected when any rejects it or
// its time runs out. The binding cycle awaits `decision`.
import { type Clock, formatDuration, type Timer } from "../../util";
import type { WaitingPod } from "./interface";
import type { PodInfo } from "../model/pod-info";
import { Code, Status, type MaybeStatus } from "./status";

/** Permit waits are capped at 15 minutes (framework.go maxTimeout). */
export const MAX_PERMIT_TIMEOUT_MS = 15 * 60_000;

export class WaitingPodEntry implements WaitingPod {
  private readonly timers = new Map<string, Timer>();
  private settle!: (s: MaybeStatus) => void;
  private settled = false;
  readonly decision: Promise<MaybeStatus>;

  constructor(
    readonly pod: PodInfo,
    waitMs: ReadonlyMap<string, number>,
    clock: Clock,
  ) {
    this.decision = new Promise((resolve) => (this.settle = resolve));
    for (const [plugin, ms] of waitMs) {
      this.timers.set(
        plugin,
        clock.setTimer(ms, () => this.reject(plugin, `rejected due to timeout after waiting ${formatDuration(ms)} at plugin ${plugin}`)),
      );
    }
  }

  pendingPlugins(): string[] {
    return [...this.timers.keys()];
  }

  allow(plugin: string): void {
    const t = this.timers.get(plugin);
    if (!t || this.settled) return;
    t.cancel();
    this.timers.delete(plugin);
    if (this.timers.size === 0) this.finish(undefined);
  }

  reject(plugin: string, message: string): void {
    if (this.settled) return;
    this.finish(new Status(Code.Unschedulable, [message]).withPlugin(plugin));
  }

  private finish(s: MaybeStatus): void {
    this.settled = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    this.settle(s);
  }
}

export class WaitingPods {
  private readonly pods = new Map<string, WaitingPodEntry>();

  add(wp: WaitingPodEntry): void {
    this.pods.set(wp.pod.uid, wp);
  }

  get(uid: string): WaitingPodEntry | undefined {
    return this.pods.get(uid);
  }

  remove(uid: string): void {
    this.pods.delete(uid);
  }

  forEach(fn: (wp: WaitingPodEntry) => void): void {
    for (const wp of this.pods.values()) fn(wp);
  }

  get size(): number {
    return this.pods.size;
  }
}
