// TerminationOrder: the order in which a pod with native sidecars stops (KEP-753; the kubelet's
// kuberuntime_termination_order.go, k/k 1.29+): the app containers first, all at once, then the
// sidecars, the last declared first. Every container's kill starts at once, so preStop hooks run at
// once; before its StopContainer a sidecar waits for its turn — every running app container and
// every later running sidecar stopped — but never longer than its grace period, and it then stops
// with what is left of that period. A pod without sidecars has no order: all stop at once.
import type { Pod } from "kubernetes-types/core/v1";
import type { Clock } from "../util";
import { isSidecar } from "./pod-actions";

export class TerminationOrder {
  /** Resolved once the container of that name has stopped (at once for one not running). */
  private readonly stopped = new Map<string, { done: Promise<void>; resolve: () => void }>();
  /** What each sidecar waits for: the app containers and the next sidecar in the spec. */
  private readonly prerequisites = new Map<string, Promise<void>[]>();

  constructor(
    pod: Pod,
    running: readonly string[],
    private readonly clock: Clock,
  ) {
    const isRunning = new Set(running);
    const track = (name: string) => {
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      this.stopped.set(name, { done, resolve });
      if (!isRunning.has(name)) resolve();
      return done;
    };
    const apps = (pod.spec?.containers ?? []).map((c) => track(c.name));
    let later: Promise<void> | undefined;
    const inits = pod.spec?.initContainers ?? [];
    for (let i = inits.length - 1; i >= 0; i--) {
      const c = inits[i]!;
      const done = track(c.name);
      if (!isSidecar(c)) continue;
      this.prerequisites.set(c.name, later ? [...apps, later] : apps);
      later = done;
    }
  }

  /**
   * Waits until the container may stop, at most graceSeconds (no wait without a grace period), and
   * returns the whole seconds waited: the kubelet's waitForTurn, whose caller takes them off the grace.
   */
  async waitForTurn(name: string, graceSeconds: number): Promise<number> {
    const waitFor = this.prerequisites.get(name);
    if (!waitFor || graceSeconds <= 0) return 0;
    const start = this.clock.now();
    let timer: { cancel(): void } | undefined;
    const expired = new Promise<void>((resolve) => (timer = this.clock.setTimer(graceSeconds * 1000, resolve)));
    await Promise.race([Promise.all(waitFor), expired]);
    timer?.cancel();
    return Math.floor((this.clock.now() - start) / 1000);
  }

  /** The container has stopped (or its stop failed): whoever waits for it goes on. */
  terminated(name: string): void {
    this.stopped.get(name)?.resolve();
  }
}
