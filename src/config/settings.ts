// The pod sources' settings (static pods from a folder or a URL, and the push policy of the HTTP
// source), declared once as rows (util/settings.ts) and resolved here.
import {
  DURATION,
  fileDuration,
  fileMap,
  fileString,
  fileStringList,
  formatDuration,
  Invalid,
  mustExist,
  oneOf,
  positiveDuration,
  type Setting,
  type SettingsReader,
  STRING,
  STRINGS,
} from "../util";
import { PUSH_POLICIES, type PushPolicy } from "./push-policy";

export interface SourceSettings {
  /** Static pods: a directory (or one file) that exists. */
  manifestPath?: string;
  fileCheckFrequencyMs: number;
  /** Static pods from a URL, polled. */
  manifestUrl?: string;
  manifestUrlHeaders: Record<string, string[]>;
  httpCheckFrequencyMs: number;
}

export const SOURCE_SETTINGS: ReadonlyArray<Setting<SourceSettings>> = [
  {
    flag: "pod-manifest-path",
    field: "staticPodPath",
    fieldType: STRING,
    valueHint: "path",
    show: (c) => c.manifestPath,
    doc: "Static pod directory (or one file); it must exist",
  },
  {
    flag: "manifest-url",
    field: "staticPodURL",
    fieldType: STRING,
    valueHint: "url",
    show: (c) => c.manifestUrl,
    doc: "URL serving a Pod or a PodList, polled every --http-check-frequency",
  },
  {
    flag: "manifest-url-header",
    field: "staticPodURLHeader",
    fieldType: { kind: "map", of: STRINGS },
    valueHint: "Name:Value,…",
    // The values are often a credential to a third party: never shown (the kubelet shows them).
    show: (c) => (c.manifestUrl ? Object.fromEntries(Object.entries(c.manifestUrlHeaders).map(([k, v]) => [k, v.map(() => "<redacted>")])) : undefined),
    doc: "Headers for --manifest-url",
  },
  {
    flag: "file-check-frequency",
    field: "fileCheckFrequency",
    fieldType: DURATION,
    valueHint: "duration",
    default: "20s",
    show: (c) => formatDuration(c.fileCheckFrequencyMs),
    doc: "Static pod directory rescan period",
  },
  {
    flag: "http-check-frequency",
    field: "httpCheckFrequency",
    fieldType: DURATION,
    valueHint: "duration",
    default: "20s",
    show: (c) => formatDuration(c.httpCheckFrequencyMs),
    doc: "--manifest-url poll period",
  },
  {
    flag: "push-policy",
    kind: "enum",
    options: ["unrestricted", "restricted"],
    default: "unrestricted",
    doc: "restricted: POST /pods refuses privileged containers, host namespaces, hostPath volumes and added capabilities (403)",
  },
];

function headersFlag(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const h of text.split(",").filter((x) => x.trim())) {
    const i = h.indexOf(":");
    if (i <= 0) throw new Invalid(`${JSON.stringify(h)}: use Name:Value`);
    (out[h.slice(0, i).trim()] ??= []).push(h.slice(i + 1).trim());
  }
  return out;
}

/** --pod-manifest-path, --manifest-url and its headers (read in this order, as their mistakes are listed). */
export function resolveManifestSources(s: SettingsReader): Pick<SourceSettings, "manifestPath" | "manifestUrl" | "manifestUrlHeaders"> {
  const manifestPath = s.string("pod-manifest-path", mustExist);
  const manifestUrl = s.string("manifest-url", (u) => {
    if (!/^https?:\/\/[^/]/.test(u)) throw new Invalid("expected an http:// or https:// URL");
    return u;
  });
  const manifestUrlHeaders =
    s.get("manifest-url-header", headersFlag, (v) => Object.fromEntries(Object.entries(fileMap(v)).map(([k, list]) => [k, fileStringList(list)]))) ?? {};
  return { manifestPath, manifestUrl, manifestUrlHeaders };
}

export function resolvePushPolicy(s: SettingsReader): PushPolicy {
  return (s.get("push-policy", (t) => oneOf(t, PUSH_POLICIES), fileString) ?? "unrestricted") as PushPolicy;
}

export function resolveCheckFrequency(s: SettingsReader, flag: "file-check-frequency" | "http-check-frequency"): number {
  return s.get(flag, positiveDuration, fileDuration) ?? 0;
}
