// src/cri owns the container runtime: the CRI client (RuntimeService, ImageService, its own gRPC over
// HTTP/2 with deadlines and typed errors), the kubelet's CRI labels, and the containerd nodeagent starts
// when the host has none, and MemoryRuntime, the runtime that runs nothing (`nodeagent hollow`, the
// unit tests' fake). Everything above it talks to the runtime through what is exported here.
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
export { MemoryRuntime } from "./memory-runtime";
export type { MemoryRuntimeOptions } from "./memory-options";
export { KILLED_EXIT_CODE, type ExitPlan } from "./memory-behaviour";
export type { MemoryContainer, MemorySandbox } from "./memory-records";
export { MemorySchedule } from "./memory-schedule";
export { MemoryEventStream } from "./memory-events";
export {
  EXEC_EXIT_CODE_ANNOTATION,
  EXIT_AFTER_ANNOTATION,
  EXIT_CODE_ANNOTATION,
  IGNORE_SIGTERM_ANNOTATION,
  START_LATENCY_ANNOTATION,
} from "./memory-behaviour";
export { loadCriClient, loadRuntimeResolver } from "./lazy";
