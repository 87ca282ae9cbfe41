// src/volume owns the volumes and API-object config that pods carry (issue 15): where configMaps,
// secrets and tokens come from (ObjectSource), the plugins that turn a pod volume into files and
// mounts, and the VolumeManager the pod sync waits on before it creates containers.
export * from "./types";
export { ApiObjectSource, OBJECT_SYNC_TIMEOUT_MS, type ApiObjectSourceOptions } from "./api-object-source";
export { TokenManager, tokenKey, type RequestToken, type TokenManagerOptions } from "./token-manager";
export { LocalObjectSource, TOKENS_NEED_KUBECONFIG, type LocalObjectSourceOptions } from "./local-object-source";
export { NoObjectSource, noObjectSourceMessage } from "./no-object-source";
