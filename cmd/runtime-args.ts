// Flags shared by every command that talks to the container runtime, with the kubelet's names.
export const runtimeArgs = {
  "runtime-endpoint": {
    type: "string",
    description: "CRI socket, unix:///path (default: containerd's or CRI-O's standard socket, else a containerd started under --root-dir)",
  },
  "root-dir": { type: "string", default: "/var/lib/nodeagent", description: "Data of the managed containerd; image tarballs in <root-dir>/images/ are imported" },
  "pod-infra-container-image": { type: "string", default: "localhost/nodeagent/pause:1.0", description: "Sandbox (pause) image of the managed containerd" },
  "runtime-request-timeout": { type: "string", default: "2m", description: "Deadline of each CRI call" },
} as const;
