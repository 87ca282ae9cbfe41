// src/cri owns the container runtime: the CRI client (RuntimeService, ImageService) with deadlines and
// typed errors, the kubelet's CRI labels, and the containerd nodeagent starts when the host has none.
// It may import only src/util. Everything above it talks to the runtime through what is exported here.
export { CriClient, socketPath, type ContainerEventStream, type CriClientOptions } from "./client";
export * from "./errors";
export * as labels from "./labels";
export { ManagedContainerd, findContainerd, type ManagedContainerdOptions } from "./managed";
export { resolveRuntime, STANDARD_ENDPOINTS, type ResolvedRuntime } from "./runtime";
export type * from "./types";
export { resolveRuntimeSettings, RUNTIME_SETTINGS, type RuntimeSettings } from "./settings";
