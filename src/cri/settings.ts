// The container runtime's settings, shared by every command that talks to the runtime (agent, pleg,
// probe): declared once as rows (util/settings.ts), resolved here for the agent. (--root-dir, where
// a managed containerd keeps its data, is the agent's: src/agent/agent-settings.ts.)
import { defaultOf, DURATION, fileDuration, formatDuration, positiveDuration, type Setting, type SettingsReader, STRING } from "../util";

export interface RuntimeSettings {
  /** The CRI socket; without one, a standard socket or a containerd started under rootDir. */
  endpoint?: string;
  podInfraImage: string;
  requestTimeoutMs: number;
}

export const RUNTIME_SETTINGS: ReadonlyArray<Setting<RuntimeSettings>> = [
  {
    flag: "runtime-endpoint",
    field: "containerRuntimeEndpoint",
    fieldType: STRING,
    valueHint: "unix:///path",
    show: (r) => r.endpoint,
    doc: "CRI socket (default: containerd's or CRI-O's standard socket, else a containerd started under --root-dir)",
  },
  {
    flag: "pod-infra-container-image",
    field: "podInfraContainerImage",
    fieldType: STRING,
    valueHint: "image",
    default: "localhost/nodeagent/pause:1.0",
    doc: "Sandbox (pause) image of the managed containerd",
  },
  {
    flag: "runtime-request-timeout",
    field: "runtimeRequestTimeout",
    fieldType: DURATION,
    valueHint: "duration",
    default: "2m",
    show: (r) => formatDuration(r.requestTimeoutMs),
    doc: "Deadline of each CRI call",
  },
];

export function resolveRuntimeSettings(s: SettingsReader): RuntimeSettings {
  return {
    endpoint: s.string("runtime-endpoint"),
    podInfraImage: s.string("pod-infra-container-image") ?? defaultOf(RUNTIME_SETTINGS, "pod-infra-container-image"),
    requestTimeoutMs: s.get("runtime-request-timeout", positiveDuration, fileDuration) ?? 0,
  };
}
