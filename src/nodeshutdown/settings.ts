// Graceful node shutdown's settings, declared once as rows (util/settings.ts) and resolved here:
// shutdownGracePeriod and shutdownGracePeriodCriticalPods (KubeletConfiguration fields only in the
// kubelet; --shutdown-grace-period and --shutdown-grace-period-critical-pods are nodeagent's own
// flags for them), shutdownGracePeriodByPodPriority (file only), and --shutdown-pods (nodeagent's own).
import {
  describe,
  DURATION,
  durationText,
  errorMessage,
  fileDurationOf,
  fileInt,
  fileMap,
  formatDuration,
  INT,
  Invalid,
  type Setting,
  type SettingsReader,
  struct,
} from "../util";
import { migrateGracePeriods, type ShutdownGracePeriodByPodPriority } from "./grace-periods";

export interface ShutdownConfig {
  /** The priority groups and their budgets (the two migrated ones, or the file's list); empty: off. */
  periods: ShutdownGracePeriodByPodPriority[];
  /** shutdownGracePeriod and shutdownGracePeriodCriticalPods as given (0 with the by-priority list), for /configz. */
  gracePeriodMs: number;
  criticalPodsMs: number;
  /** The file gave shutdownGracePeriodByPodPriority (periods is its list). */
  byPodPriority: boolean;
  /** --shutdown-pods: SIGTERM stops every pod within the budgets before the agent exits. */
  shutdownPods: boolean;
}

export const SHUTDOWN_SETTINGS: ReadonlyArray<Setting<ShutdownConfig>> = [
  {
    flag: "shutdown-grace-period",
    field: "shutdownGracePeriod",
    fieldType: DURATION,
    valueHint: "duration",
    default: "0s",
    show: (c) => formatDuration(c.gracePeriodMs),
    doc: "Graceful node shutdown: how long the node's shutdown is delayed (logind delay lock) to stop the pods, the critical pods' part last; 0: off. The kubelet's shutdownGracePeriod field",
  },
  {
    flag: "shutdown-grace-period-critical-pods",
    field: "shutdownGracePeriodCriticalPods",
    fieldType: DURATION,
    valueHint: "duration",
    default: "0s",
    show: (c) => formatDuration(c.criticalPodsMs),
    doc: "The part of --shutdown-grace-period kept for critical pods (priority >= 2000000000), stopped after the others. The kubelet's shutdownGracePeriodCriticalPods",
  },
  {
    flag: "shutdown-pods",
    kind: "boolean",
    default: "false",
    doc: "On SIGTERM, stop every pod as a node shutdown does (by priority, within --shutdown-grace-period; Failed, reason Terminated) before exiting, for hosts without systemd-logind. Default: SIGTERM leaves the pods running",
  },
  {
    field: "shutdownGracePeriodByPodPriority",
    fieldType: { kind: "list", of: struct({ priority: INT, shutdownGracePeriodSeconds: INT }) },
    doc: "Graceful node shutdown by priority: a list of {priority, shutdownGracePeriodSeconds}, each pod stopped within the budget of the highest priority at or below its own; not with shutdownGracePeriod (file only, as the kubelet's)",
    show: (c) => (c.byPodPriority ? c.periods : undefined),
  },
];

/**
 * Checked as the kubelet's ValidateKubeletConfiguration checks it: each grace period 0 (off) or at
 * least 1 s, the critical pods' part no longer than the whole, and the by-priority list not beside
 * the pair. --shutdown-pods needs a grace period to stop the pods within.
 */
export function resolveShutdown(s: SettingsReader): ShutdownConfig {
  const duration = (text: string): number => {
    const ms = durationText(text);
    if (ms < 0 || (ms > 0 && ms < 1000)) throw new Invalid("must be either zero or otherwise >= 1 sec");
    return ms;
  };
  const fileDurationOrZero = fileDurationOf(duration, "30s");
  const graceMs = s.get("shutdown-grace-period", duration, fileDurationOrZero) ?? 0;
  const criticalMs = s.get("shutdown-grace-period-critical-pods", duration, fileDurationOrZero) ?? 0;
  if (criticalMs > graceMs)
    s.fail(
      `--shutdown-grace-period-critical-pods (shutdownGracePeriodCriticalPods) ${criticalMs / 1000}s must be <= --shutdown-grace-period (shutdownGracePeriod) ${graceMs / 1000}s`,
    );
  let periods = migrateGracePeriods(graceMs, criticalMs);
  const byPriority = s.field("shutdownGracePeriodByPodPriority");
  let byPodPriority = false;
  if (byPriority) {
    if (graceMs > 0 || criticalMs > 0) {
      s.fail(
        `${byPriority.at}: shutdownGracePeriodByPodPriority: cannot be given with shutdownGracePeriod (--shutdown-grace-period) or shutdownGracePeriodCriticalPods at the same time`,
      );
    } else {
      try {
        if (!Array.isArray(byPriority.value)) throw new Invalid(`expected a list of {priority, shutdownGracePeriodSeconds}, got ${describe(byPriority.value)}`);
        periods = byPriority.value.map((entry, i) => {
          const m = fileMap(entry);
          const at = `entry ${i + 1}`;
          try {
            return {
              priority: fileInt(-(2 ** 31), 2 ** 31 - 1)(m.priority ?? 0),
              shutdownGracePeriodSeconds: fileInt(0, 2 ** 31 - 1)(m.shutdownGracePeriodSeconds ?? 0),
            };
          } catch (e) {
            throw new Invalid(`${at}: ${errorMessage(e)}`);
          }
        });
        byPodPriority = true;
      } catch (e) {
        if (!(e instanceof Invalid)) throw e;
        s.fail(`${byPriority.at}: shutdownGracePeriodByPodPriority: ${e.message}`);
      }
    }
  }
  const shutdownPods = s.flags["shutdown-pods"] === true;
  if (shutdownPods && periods.length === 0)
    s.fail(
      "--shutdown-pods stops the pods within the graceful shutdown's budget: give --shutdown-grace-period (or shutdownGracePeriodByPodPriority in --config)",
    );
  return { periods, gracePeriodMs: graceMs, criticalPodsMs: criticalMs, byPodPriority, shutdownPods };
}
