// Short names for the generated CRI message types (src/cri/generated, from proto/api.proto).
// `X` is what the runtime returns (every field present, as decoded); `XInput` is what we send.
export type { PodSandbox__Output as PodSandbox } from "./generated/runtime/v1/PodSandbox";
export type { PodSandboxStatus__Output as PodSandboxStatus } from "./generated/runtime/v1/PodSandboxStatus";
export type { PodSandboxMetadata__Output as PodSandboxMetadata } from "./generated/runtime/v1/PodSandboxMetadata";
export type { PodSandboxConfig as PodSandboxConfigInput } from "./generated/runtime/v1/PodSandboxConfig";
export type { PodSandboxFilter as PodSandboxFilterInput } from "./generated/runtime/v1/PodSandboxFilter";
export type { Container__Output as Container } from "./generated/runtime/v1/Container";
export type { ContainerStatus__Output as ContainerStatus } from "./generated/runtime/v1/ContainerStatus";
export type { ContainerConfig as ContainerConfigInput } from "./generated/runtime/v1/ContainerConfig";
export type { LinuxContainerResources as LinuxContainerResourcesInput } from "./generated/runtime/v1/LinuxContainerResources";
export type { ContainerFilter as ContainerFilterInput } from "./generated/runtime/v1/ContainerFilter";
export type { ContainerEventResponse__Output as ContainerEvent } from "./generated/runtime/v1/ContainerEventResponse";
export type { ContainerEventType__Output as ContainerEventType } from "./generated/runtime/v1/ContainerEventType";
export type { ContainerState__Output as ContainerState } from "./generated/runtime/v1/ContainerState";
export type { PodSandboxState__Output as PodSandboxState } from "./generated/runtime/v1/PodSandboxState";
export type { VersionResponse__Output as VersionResponse } from "./generated/runtime/v1/VersionResponse";
export type { StatusResponse__Output as StatusResponse } from "./generated/runtime/v1/StatusResponse";
export type { ExecSyncResponse__Output as ExecSyncResponse } from "./generated/runtime/v1/ExecSyncResponse";
export type { Image__Output as Image } from "./generated/runtime/v1/Image";
export type { ImageSpec as ImageSpecInput } from "./generated/runtime/v1/ImageSpec";
export type { AuthConfig as AuthConfigInput } from "./generated/runtime/v1/AuthConfig";
export type { ImageStatusResponse__Output as ImageStatusResponse } from "./generated/runtime/v1/ImageStatusResponse";
export type { ImageFsInfoResponse__Output as ImageFsInfoResponse } from "./generated/runtime/v1/ImageFsInfoResponse";
export type { ContainerStats__Output as ContainerStats } from "./generated/runtime/v1/ContainerStats";
export type { ContainerStatsFilter as ContainerStatsFilterInput } from "./generated/runtime/v1/ContainerStatsFilter";
export type { PodSandboxStats__Output as PodSandboxStats } from "./generated/runtime/v1/PodSandboxStats";
export type { PodSandboxStatsFilter as PodSandboxStatsFilterInput } from "./generated/runtime/v1/PodSandboxStatsFilter";
