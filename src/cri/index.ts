// src/cri owns the container runtime: the CRI client (RuntimeService, ImageService, its own gRPC over
// HTTP/2 with deadlines and typed errors), the kubelet's CRI labels, and the containerd nodeagent starts
// when the host has none. Everything above it talks to the runtime through what is exported here.
export { CriClient, socketPath, type ContainerEventStream, type CriClientOptions } from "./client";
export * from "./errors";
export type { CriRuntime } from "./runtime-service";
export * as labels from "./labels";
export { ManagedContainerd, findContainerd, type ManagedContainerdOptions } from "./managed";
export { resolveRuntime, STANDARD_ENDPOINTS, type ResolvedRuntime } from "./runtime";
export type * from "./types";
export { resolveRuntimeSettings, RUNTIME_SETTINGS, type RuntimeSettings } from "./settings";
export type { SELinuxOption } from "./generated/runtime/v1/SELinuxOption";
export type { SecurityProfile } from "./generated/runtime/v1/SecurityProfile";
export { CONTAINER_NAME, containerLabels, POD_NAME, POD_NAMESPACE, POD_UID, sandboxLabels } from "./labels";
export { loadCriClient, loadRuntimeResolver } from "./lazy";
