// src/kube owns the connection to a Kubernetes API server: kubeconfig loading and auth through
// @kubernetes/client-node, a transport that works in a Bun binary, self-restarting informers and API
// error helpers; the cluster mode and the scheduler build on it.
export { loadKubeClient, kubeClientFromConfig, type KubeClient, type KubeClientOptions } from "./client";
export { TokenBucket, LONG_THROTTLE_MS, type RateLimit } from "./rate-limiter";
export { ApiRequestCounts, apiRequestAttributes, type ApiRequestCount, type ApiRequestVerb } from "./request-counts";
export { KubeInformer, type ApiList, type ApiObject, type KubeInformerOptions, type InformerEvent } from "./informer";
export { apiErrorCode, apiErrorMessage, apiStatusMessage, isConflict, isNotFound, isForbidden, isUnauthorized, isGone } from "./errors";
export { PatchStrategy } from "@kubernetes/client-node";
export { loadKube } from "./lazy";
