// src/volume owns the volumes and API-object config that pods carry (issue 15): where configMaps,
// secrets and tokens come from (ObjectSource), the plugins that turn a pod volume into files and
// mounts, and the VolumeManager the pod sync waits on before it creates containers; also the config a
// container takes from API objects: its environment (container-env) and the pod's image pull
// credentials (pull-secrets, docker-keyring).
export * from "./types";
export * from "./atomic-writer";
export * from "./payload";
export * from "./configmap";
export * from "./secret";
export * from "./downward-api";
export * from "./projected";
export * from "./empty-dir";
export * from "./mount";
export * from "./ownership";
export * from "./set-up";
export * from "./container-env";
export * from "./service-env";
export { NoServiceLister } from "./no-service-lister";
export * from "./docker-keyring";
export * from "./pull-secrets";
export { ApiObjectSource, OBJECT_SYNC_TIMEOUT_MS, type ApiObjectSourceOptions } from "./api-object-source";
export { ApiServiceLister, type ApiServiceListerOptions } from "./api-service-lister";
export { TokenManager, tokenKey, type RequestToken, type TokenManagerOptions } from "./token-manager";
export { LocalObjectSource, TOKENS_NEED_KUBECONFIG, type LocalObjectSourceOptions } from "./local-object-source";
export { NoObjectSource, noObjectSourceMessage } from "./no-object-source";
export * from "./mount-table";
export * from "./object-refs";
export * from "./volume-manager";
export * from "./plugins";
