// Image GC, container GC and container log rotation settings (the kubelet's flags and fields, and
// nodeagent's own periods), declared once as rows (util/settings.ts) and resolved beside the code.
// The log rotation rows are here, beside GC's, because one resolver reads them all: its messages come
// in the kubelet's order; src/logs (a lower layer) takes the resolved ContainerLogPolicy.
import {
  DURATION,
  fileDuration,
  fileDurationOf,
  fileInt,
  fileString,
  formatDuration,
  INT,
  intAtLeast,
  nonNegativeDuration,
  positiveDuration,
  type Setting,
  type SettingsReader,
  STRING,
  wholeNumber,
} from "../util";
import { positiveBytes } from "../api";
import type { ContainerGCPolicy } from "./container-gc";
import type { ContainerLogPolicy } from "../logs";
import type { ImageGCPolicy } from "./image-gc-manager";

/** The kubelet's image GC, container GC and log rotation settings, and nodeagent's periods for tests. */
export interface GarbageCollectionConfig {
  image: ImageGCPolicy;
  /** --image-gc-period (nodeagent's own): the kubelet's ImageGCPeriod, a 5 min constant there. */
  imagePeriodMs: number;
  container: ContainerGCPolicy;
  /** --container-gc-period (nodeagent's own): the kubelet's ContainerGCPeriod, a 1 min constant there. */
  containerPeriodMs: number;
  containerLogs: ContainerLogPolicy;
}

/** Image and container GC. */
export const GC_SETTINGS: ReadonlyArray<Setting<GarbageCollectionConfig>> = [
  {
    flag: "image-gc-high-threshold",
    field: "imageGCHighThresholdPercent",
    fieldType: INT,
    valueHint: "percent",
    default: "85",
    show: (g) => g.image.highThresholdPercent,
    doc: "Image filesystem usage at or above which unused images are removed, least recently used first (100: never)",
  },
  {
    flag: "image-gc-low-threshold",
    field: "imageGCLowThresholdPercent",
    fieldType: INT,
    valueHint: "percent",
    default: "80",
    show: (g) => g.image.lowThresholdPercent,
    doc: "Image GC frees space down to this usage; below the high threshold",
  },
  {
    flag: "minimum-image-ttl-duration",
    field: "imageMinimumGCAge",
    fieldType: DURATION,
    valueHint: "duration",
    default: "2m",
    show: (g) => formatDuration(g.image.minAgeMs),
    doc: "An unused image is removed only once it was first seen this long ago",
  },
  {
    flag: "image-gc-period",
    valueHint: "duration",
    default: "5m",
    doc: "How often images are checked (nodeagent's own; the kubelet's fixed 5m ImageGCPeriod)",
  },
  { flag: "minimum-container-ttl-duration", valueHint: "duration", default: "0s", doc: "A dead container is removed only once it was created this long ago" },
  { flag: "maximum-dead-containers-per-container", valueHint: "int", default: "1", doc: "Dead instances kept per container (the newest; -1: all)" },
  { flag: "maximum-dead-containers", valueHint: "int", default: "-1", doc: "Dead containers kept on the node in all (-1: no limit)" },
  {
    flag: "container-gc-period",
    valueHint: "duration",
    default: "1m",
    doc: "How often dead containers, sandboxes and gone pods' log folders are collected (nodeagent's own; the kubelet's fixed 1m)",
  },
];

/** Container log rotation (src/logs). */
export const CONTAINER_LOG_SETTINGS: ReadonlyArray<Setting<GarbageCollectionConfig>> = [
  {
    flag: "container-log-max-size",
    field: "containerLogMaxSize",
    fieldType: STRING,
    valueHint: "quantity",
    default: "10Mi",
    show: (g) => binaryQuantity(g.containerLogs.maxSizeBytes),
    doc: "A running container's log is rotated once it reaches this size",
  },
  {
    flag: "container-log-max-files",
    field: "containerLogMaxFiles",
    fieldType: INT,
    valueHint: "int",
    default: "5",
    show: (g) => g.containerLogs.maxFiles,
    doc: "Log files kept per container, the live one included (older rotated ones gzipped); at least 2",
  },
];

/** Bytes as the largest binary suffix that divides them ("10Mi"), as a Quantity prints them. */
export function binaryQuantity(bytes: number): string {
  for (const [suffix, unit] of [
    ["Ti", 2 ** 40],
    ["Gi", 2 ** 30],
    ["Mi", 2 ** 20],
    ["Ki", 2 ** 10],
  ] as const) {
    if (bytes >= unit && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

/**
 * Image GC, container GC and log rotation, checked as the kubelet's ValidateKubeletConfiguration
 * checks them: thresholds 0–100 with low below high, durations of 0 or more, dead-container counts
 * of −1 (no limit) or more, a log size above 0 and at least 2 log files.
 */
export function resolveGarbageCollection(s: SettingsReader): GarbageCollectionConfig {
  const percent = (flag: string) => s.get(flag, (t) => wholeNumber(t, 0, 100), fileInt(0, 100));
  const fileDurationOrZero = fileDurationOf(nonNegativeDuration, "2m");
  const high = percent("image-gc-high-threshold") ?? 85;
  const low = percent("image-gc-low-threshold") ?? 80;
  if (low >= high)
    s.fail(`--image-gc-low-threshold (imageGCLowThresholdPercent) ${low} must be less than --image-gc-high-threshold (imageGCHighThresholdPercent) ${high}`);
  const maxFiles = s.get("container-log-max-files", (t) => wholeNumber(t, 0, 1_000_000), fileInt(0, 1_000_000)) ?? 5;
  if (maxFiles < 2) s.fail(`--container-log-max-files (containerLogMaxFiles) ${maxFiles} must be greater than 1: the live log and at least one rotated file`);
  return {
    image: {
      highThresholdPercent: high,
      lowThresholdPercent: low,
      minAgeMs: s.get("minimum-image-ttl-duration", nonNegativeDuration, fileDurationOrZero) ?? 0,
    },
    imagePeriodMs: s.get("image-gc-period", positiveDuration, fileDuration) ?? 0,
    container: {
      minAgeMs: s.get("minimum-container-ttl-duration", nonNegativeDuration, fileDurationOrZero) ?? 0,
      maxPerPodContainer: s.get("maximum-dead-containers-per-container", intAtLeast(-1), fileInt(-1, 1_000_000)) ?? 1,
      maxContainers: s.get("maximum-dead-containers", intAtLeast(-1), fileInt(-1, 1_000_000)) ?? -1,
    },
    containerPeriodMs: s.get("container-gc-period", positiveDuration, fileDuration) ?? 0,
    containerLogs: { maxSizeBytes: s.get("container-log-max-size", positiveBytes, (v) => positiveBytes(fileString(v))) ?? 0, maxFiles },
  };
}
