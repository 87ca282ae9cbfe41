// src/objects owns the API objects and container environment pods consume (the kubelet's configmap,
// secret and token managers, and envvars): where configMaps, secrets, tokens and services come from,
// a container's environment, the downward API's values and the pod's image pull credentials.
export * from "./types";
export * from "./secret-data";
export * from "./downward-api";
export * from "./container-env";
export * from "./service-env";
export { NoServiceLister } from "./no-service-lister";
export * from "./docker-keyring";
export * from "./pull-secrets";
export type { ApiObjectSource, ApiObjectSourceOptions } from "./api-object-source";
export type { ApiServiceLister, ApiServiceListerOptions } from "./api-service-lister";
export { TokenManager, tokenKey, type RequestToken, type TokenManagerOptions } from "./token-manager";
export { LocalObjectSource, TOKENS_NEED_KUBECONFIG, type LocalObjectSourceOptions } from "./local-object-source";
export { NoObjectSource, noObjectSourceMessage } from "./no-object-source";
export * from "./object-refs";
export { loadApiObjectSource, loadApiServiceLister } from "./lazy";
