// Flags shared by every command that talks to the container runtime, with the kubelet's names.
import { AGENT_DEFAULTS } from "../src/agent/agent-config";

export const runtimeArgs = {
  "runtime-endpoint": { type: "string", valueHint: "unix:///path", description: "CRI socket (default: containerd's or CRI-O's standard socket, else a containerd started under --root-dir)" },
  "root-dir": { type: "string", valueHint: "dir", default: AGENT_DEFAULTS["root-dir"], description: "Data of the managed containerd; image tarballs in <root-dir>/images/ are imported" },
  "pod-infra-container-image": { type: "string", valueHint: "image", default: AGENT_DEFAULTS["pod-infra-container-image"], description: "Sandbox (pause) image of the managed containerd" },
  "runtime-request-timeout": { type: "string", valueHint: "duration", default: AGENT_DEFAULTS["runtime-request-timeout"], description: "Deadline of each CRI call" },
} as const;
