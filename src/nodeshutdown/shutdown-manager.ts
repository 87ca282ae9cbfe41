// ShutdownManager: graceful node shutdown, the kubelet's node shutdown manager (k/k@1.24.1
// pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go; GracefulNodeShutdown and
// GracefulNodeShutdownBasedOnPodPriority, beta and on in 1.24).
//
// The state machine is two states, running and shutting down:
//
//   running ──shutdown()──▶ shutting down ──cancel()──▶ running
//
// shutdown() is what the kubelet's processShutdownEvent does when logind says PrepareForShutdown(true),
// and what the agent does on SIGTERM with --shutdown-pods (there is no logind here to ask): from then on
// the node's Ready condition is False with the message `node is shutting down` (the caller folds
// shutdownStatus() into the Ready verdict, as the kubelet's ReadyCondition setter folds the manager's
// ShutdownStatus error in), new pods are refused at admission (this is the last PodAdmitHandler of the
// chain: reason NodeShutdown, `Pod was rejected as the node is shutting down.`), and the active pods are
// stopped group by group, lowest priority first (grace-periods.ts). Each pod of a group is stopped
// within min(its terminationGracePeriodSeconds, the group's budget); the group is waited for until all
// its pods have terminated or its budget has passed on the clock, whichever comes first, then the next
// group starts. A stopped pod's status is phase Failed, reason `Terminated`, message `Pod was
// terminated in response to imminent node shutdown.`.
//
// Later Kubernetes releases also put the condition DisruptionTarget (status True, reason
// TerminationByKubelet, the same message) on the pod: behind the PodDisruptionConditions gate from 1.26,
// always from 1.31 (GA). 1.24 sets none, and neither does this. The kubelet also persists the start and
// end times in <root-dir>/graceful_node_shutdown_state for its metrics; the agent keeps no such file.
import type { Pod } from "kubernetes-types/core/v1";
import { podKey } from "../api";
import type { PodAdmitAttributes, PodAdmitHandler, PodAdmitResult } from "../admission";
import type { NodeEventRecorder } from "../events";
import type { Clock, Logger, Timer } from "../util";
import { groupByPriority, periodRequestedSeconds, sortGroups, type ShutdownGracePeriodByPodPriority } from "./grace-periods";

/** The status reason of a pod stopped for the shutdown (nodeShutdownReason). */
export const NODE_SHUTDOWN_REASON = "Terminated";
/** Its message (nodeShutdownMessage). */
export const NODE_SHUTDOWN_MESSAGE = "Pod was terminated in response to imminent node shutdown.";
/** The admission refusal while shutting down (nodeShutdownNotAdmittedReason / Message). */
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = "NodeShutdown";
export const NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE = "Pod was rejected as the node is shutting down.";
/** What the Ready condition says meanwhile (ShutdownStatus's error). */
export const NODE_SHUTTING_DOWN_MESSAGE = "node is shutting down";
/** The kubelet's default terminationGracePeriodSeconds, for a pod that gives none. */
const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/** How the manager sees and stops the node's pods: the agent, a fake in tests. */
export interface ShutdownTarget {
  /** The pods the node runs now (the kubelet's GetActivePods). */
  activePods(): Pod[];
  /**
   * Stops the pod within the grace period, its status phase Failed with this reason and message for
   * good (the kubelet's killPodFunc with a status function), and resolves once it has terminated; false
   * at once when it is not running any more.
   */
  terminatePod(pod: Pod, status: { reason: string; message: string }, gracePeriodSeconds: number): Promise<boolean>;
}

export interface ShutdownManagerOptions {
  /** shutdownGracePeriodByPodPriority, or the two groups migrated from shutdownGracePeriod(CriticalPods). */
  periods: readonly ShutdownGracePeriodByPodPriority[];
  target: ShutdownTarget;
  clock: Clock;
  log: Logger;
  /** The shutdown has started: the node's status is to be reported now (the kubelet's syncNodeStatus). */
  onShuttingDown?: () => void;
  /** The node's events: Normal Shutdown when a shutdown starts or is called off (nodeshutdown_manager_linux.go); none by default. */
  events?: NodeEventRecorder;
}

export class ShutdownManager implements PodAdmitHandler {
  /** The groups, lowest priority first. */
  readonly periods: readonly ShutdownGracePeriodByPodPriority[];
  private shuttingDown = false;
  private running: Promise<void> | undefined;

  constructor(private readonly o: ShutdownManagerOptions) {
    this.periods = sortGroups(o.periods);
  }

  /** Graceful shutdown is configured (the kubelet's manager is a stub otherwise: shutdown is immediate). */
  get enabled(): boolean {
    return this.periods.length > 0;
  }

  /** The whole shutdown's length in seconds (periodRequested): what logind's InhibitDelayMaxSec must allow. */
  periodRequestedSeconds(): number {
    return periodRequestedSeconds(this.periods);
  }

  /** The Ready condition's message while shutting down; undefined otherwise. */
  shutdownStatus(): string | undefined {
    return this.shuttingDown ? NODE_SHUTTING_DOWN_MESSAGE : undefined;
  }

  admit(_attrs: PodAdmitAttributes): PodAdmitResult {
    if (this.shuttingDown) return { admit: false, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE };
    return { admit: true };
  }

  /**
   * The node shuts down: every active pod is stopped, group by group, within the budgets. Resolves when
   * the last group has finished or run out of time. A second call while one runs joins it.
   */
  shutdown(): Promise<void> {
    if (this.running) return this.running;
    this.o.log.warn("Shutdown: Shutdown manager detected shutdown event");
    this.o.events?.("Normal", "Shutdown", "Shutdown manager detected shutdown event");
    this.shuttingDown = true;
    this.o.onShuttingDown?.();
    this.running = this.processShutdownEvent().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * logind said PrepareForShutdown(false): the shutdown was called off. The node is Ready and admits
   * pods again; pods already stopped stay stopped (as in the kubelet).
   */
  cancel(): void {
    if (!this.shuttingDown) return;
    this.o.log.warn("Shutdown: Shutdown manager detected shutdown cancellation");
    this.o.events?.("Normal", "Shutdown", "Shutdown manager detected shutdown cancellation");
    this.shuttingDown = false;
  }

  private async processShutdownEvent(): Promise<void> {
    const { log, clock, target } = this.o;
    const groups = groupByPriority(this.periods, target.activePods());
    for (const group of groups) {
      // No pods in a range: nothing to wait for there.
      if (group.pods.length === 0) continue;
      log.info("shutdown: stopping the pods of a priority group", {
        pods: group.pods.length,
        priority: group.priority,
        gracePeriod: `${group.shutdownGracePeriodSeconds}s`,
      });
      const stopped = group.pods.map(async (pod) => {
        // The pod's own grace period when it is shorter than the group's budget.
        const grace = Math.min(group.shutdownGracePeriodSeconds, pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS);
        log.info("shutdown: stopping pod", { pod: podKey(pod), gracePeriod: `${grace}s` });
        try {
          await target.terminatePod(pod, { reason: NODE_SHUTDOWN_REASON, message: NODE_SHUTDOWN_MESSAGE }, grace);
        } catch (err) {
          log.warn("shutdown: stopping pod failed", { pod: podKey(pod), err });
        }
      });
      let timer: Timer | undefined;
      const timedOut = new Promise<boolean>((resolve) => (timer = clock.setTimer(group.shutdownGracePeriodSeconds * 1000, () => resolve(true))));
      const late = await Promise.race([Promise.all(stopped).then(() => false), timedOut]);
      timer?.cancel();
      if (late)
        log.warn("shutdown: pods of a priority group still stopping after its grace period; going on", {
          priority: group.priority,
          gracePeriod: `${group.shutdownGracePeriodSeconds}s`,
        });
    }
    log.info("shutdown: every pod group has been handled; the node may shut down");
  }
}

/**
 * Where the shutdown is announced and delayed: systemd-logind over D-Bus (logind.ts), a fake in tests
 * (the kubelet's dbusInhibiter).
 */
export interface ShutdownSignal {
  /** Why it cannot be used on this host (no system bus), or undefined. */
  unavailable(): string | undefined;
  /** logind's InhibitDelayMaxUSec, in seconds: how long a delay lock may hold a shutdown back. */
  inhibitDelayMaxSeconds(): Promise<number>;
  /** Raises InhibitDelayMaxSec (a logind.conf.d drop-in) and has logind read it again. */
  overrideInhibitDelay(seconds: number): Promise<void>;
  /** Takes the delay inhibitor lock (Inhibit "shutdown", mode "delay"); a lock held before is let go. */
  inhibit(): Promise<void>;
  /** Lets go of the lock: the shutdown may proceed. */
  release(): Promise<void>;
  /** Calls onEvent with each PrepareForShutdown's argument until the signal aborts or the watch breaks. */
  watch(onEvent: (shuttingDown: boolean) => void, signal: AbortSignal): Promise<void>;
}

/**
 * The kubelet's managerImpl.start over a ShutdownSignal: InhibitDelayMaxSec checked (and raised when
 * shorter than the shutdown's length), the delay lock taken, then PrepareForShutdown watched until the
 * abort signal: true → the shutdown (then the lock is let go, and the host goes down), false (called
 * off) → Ready again and the lock taken again. Without a system bus it says so once and returns: SIGTERM
 * with --shutdown-pods is then the only trigger. Any other failure is logged and the watch ends; the
 * kubelet retries every second (dbusReconnectPeriod), which the agent does not.
 */
export async function watchShutdownSignal(manager: ShutdownManager, source: ShutdownSignal, abort: AbortSignal, log: Logger): Promise<void> {
  const why = source.unavailable();
  if (why) {
    log.info("graceful node shutdown via logind is unavailable; SIGTERM with --shutdown-pods stops the pods gracefully instead", { reason: why });
    return;
  }
  try {
    const requested = manager.periodRequestedSeconds();
    const current = await source.inhibitDelayMaxSeconds();
    if (requested > current) {
      await source.overrideInhibitDelay(requested);
      const updated = await source.inhibitDelayMaxSeconds();
      if (requested > updated) {
        throw new Error(
          `node shutdown manager was unable to update logind InhibitDelayMaxSec to ${requested}s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (${updated}s) is less than requested ShutdownGracePeriod`,
        );
      }
    }
    await source.inhibit();
    let queue = Promise.resolve();
    await source.watch((shuttingDown) => {
      // One event at a time, in order, as the kubelet's single select loop handles them.
      queue = queue
        .then(async () => {
          if (shuttingDown) {
            await manager.shutdown();
            await source.release();
            log.info("shutdown manager completed processing shutdown event, node will shutdown shortly");
          } else {
            manager.cancel();
            await source.inhibit();
          }
        })
        .catch((err) => log.warn("node shutdown failed", { err }));
    }, abort);
    await queue;
  } catch (err) {
    if (!abort.aborted) log.warn("unable to watch the node for shutdown events", { err });
  }
}
