// The eviction manager's settings (the kubelet's --eviction-* flags and KubeletConfiguration
// fields), declared once as rows (util/settings.ts) and resolved here beside the code that uses
// them: the four threshold maps through the kubelet's ParseThresholdConfig, the pressure transition
// period and the soft evictions' grace cap, and nodeagent's own monitoring period.
import {
  DURATION,
  fileDuration,
  fileInt,
  fileQuantityEntries,
  formatDuration,
  INT,
  Invalid,
  positiveDuration,
  QUANTITIES,
  type Setting,
  type SettingsReader,
} from "../util";
import {
  DEFAULT_EVICTION_HARD,
  parseEqualsMap,
  parseLangleMap,
  parseThresholds,
  ThresholdEntryError,
  ThresholdError,
  type Threshold,
  type ThresholdSetting,
} from "./thresholds";

/**
 * --eviction-hard, --eviction-soft (with --eviction-soft-grace-period), --eviction-minimum-reclaim as
 * thresholds; --eviction-pressure-transition-period; --eviction-max-pod-grace-period.
 */
export interface EvictionSettings {
  thresholds: Threshold[];
  /** The four maps as given (or defaulted), for /configz. */
  maps: Partial<Record<ThresholdSetting, Record<string, string>>>;
  pressureTransitionPeriodMs: number;
  maxPodGracePeriodSeconds: number;
}

/** The rows; --eviction-monitoring-period is resolved by the agent (a top-level option of AgentConfig). */
export const EVICTION_SETTINGS: ReadonlyArray<Setting<EvictionSettings>> = [
  {
    flag: "eviction-monitoring-period",
    valueHint: "duration",
    default: "10s",
    doc: "How often the eviction manager checks the thresholds and the emptyDir sizeLimits; the kubelet's fixed evictionMonitoringPeriod",
  },
  {
    flag: "eviction-hard",
    field: "evictionHard",
    fieldType: QUANTITIES,
    valueHint: "signal<value,…",
    default: DEFAULT_EVICTION_HARD,
    show: (e) => e.maps.hard ?? {},
    doc: "Thresholds that evict a pod at once (grace 0) when met: memory.available, allocatableMemory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available; a quantity or a % of capacity. Given, it replaces the whole default; --eviction-hard= sets none (no stats collected then). Also taken off allocatable",
  },
  {
    flag: "eviction-soft",
    field: "evictionSoft",
    fieldType: QUANTITIES,
    valueHint: "signal<value,…",
    show: (e) => e.maps.soft,
    doc: "Thresholds that evict once met for their --eviction-soft-grace-period",
  },
  {
    flag: "eviction-soft-grace-period",
    field: "evictionSoftGracePeriod",
    fieldType: QUANTITIES,
    valueHint: "signal=duration,…",
    show: (e) => e.maps.softGracePeriod,
    doc: "How long each soft threshold must be met before a pod is evicted",
  },
  {
    flag: "eviction-minimum-reclaim",
    field: "evictionMinimumReclaim",
    fieldType: QUANTITIES,
    valueHint: "signal=value,…",
    show: (e) => e.maps.minimumReclaim,
    doc: "Once met, a threshold stays met until the signal is this much above it",
  },
  {
    flag: "eviction-pressure-transition-period",
    field: "evictionPressureTransitionPeriod",
    fieldType: DURATION,
    valueHint: "duration",
    default: "5m",
    show: (e) => formatDuration(e.pressureTransitionPeriodMs),
    doc: "How long a pressure condition stays true after its threshold was last met",
  },
  {
    flag: "eviction-max-pod-grace-period",
    field: "evictionMaxPodGracePeriod",
    fieldType: INT,
    valueHint: "seconds",
    default: "0",
    show: (e) => e.maxPodGracePeriodSeconds,
    doc: "Soft evictions stop a pod within min(its grace period, this); negative: its own",
  },
];

const EVICTION_MAP_FLAGS: Record<ThresholdSetting, string> = {
  hard: "eviction-hard",
  soft: "eviction-soft",
  softGracePeriod: "eviction-soft-grace-period",
  minimumReclaim: "eviction-minimum-reclaim",
};

/** --eviction-monitoring-period: nodeagent's own (the kubelet's fixed 10 s evictionMonitoringPeriod). */
export function resolveEvictionMonitoringPeriod(s: SettingsReader): number {
  return s.get("eviction-monitoring-period", positiveDuration, fileDuration) ?? 0;
}

/**
 * The eviction settings (the kubelet's ParseThresholdConfig over its four maps). A map flag given
 * replaces the whole default map, as the kubelet's: `--eviction-hard memory.available<1Gi` drops the
 * default nodefs and imagefs thresholds, and `--eviction-hard=` leaves no hard threshold at all. In
 * the file an empty evictionHard ({}) is the zero value and keeps the defaults (the kubelet: none).
 */
export function resolveEviction(s: SettingsReader): EvictionSettings {
  const maps: Partial<Record<ThresholdSetting, Map<string, string>>> = {};
  for (const [setting, flag] of Object.entries(EVICTION_MAP_FLAGS) as Array<[ThresholdSetting, string]>) {
    const map = s.get(
      flag,
      (t) => {
        try {
          return setting === "hard" || setting === "soft" ? parseLangleMap(t) : parseEqualsMap(t);
        } catch (e) {
          throw e instanceof ThresholdError ? new Invalid(e.message) : e;
        }
      },
      (v) => new Map(fileQuantityEntries(v)),
    );
    if (map) maps[setting] = map;
  }
  let thresholds: Threshold[] = [];
  try {
    thresholds = parseThresholds({ hard: maps.hard ?? new Map(), ...maps });
  } catch (e) {
    if (!(e instanceof ThresholdEntryError)) throw e;
    const flag = EVICTION_MAP_FLAGS[e.setting];
    const f = s.fromFile(flag);
    s.fail(`${f ? `${f.at}: ${f.name}` : `--${flag}`}: ${JSON.stringify(e.entry)}: ${e.message}`);
  }
  const pressureTransitionPeriodMs = s.get("eviction-pressure-transition-period", positiveDuration, fileDuration) ?? 0;
  const maxPodGracePeriodSeconds =
    s.get(
      "eviction-max-pod-grace-period",
      (t) => {
        if (!/^-?\d+$/.test(t.trim())) throw new Invalid("expected a whole number of seconds (negative: the pod's own grace period)");
        return Number(t);
      },
      fileInt(-(2 ** 31), 2 ** 31 - 1),
    ) ?? 0;
  const asRecords = Object.fromEntries(Object.entries(maps).map(([k, m]) => [k, Object.fromEntries(m)]));
  return { thresholds, maps: asRecords, pressureTransitionPeriodMs, maxPodGracePeriodSeconds };
}
