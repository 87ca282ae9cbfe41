// The seams of the API objects pods consume (issue 15, moved out of src/volume by issue 25): an
// ObjectSource answers for the API objects pods name (configMaps, secrets, service-account tokens):
// the API server under --kubeconfig, the --local-objects folder, or nothing (standalone, the
// kubelet's rule); a ServiceLister for the services a container's service-link variables come from.
import type { ConfigMap, Pod, Secret, Service } from "kubernetes-types/core/v1";

/** An API object a pod names: what the messages and change notifications carry. */
export interface ObjectRef {
  kind: "ConfigMap" | "Secret" | "ServiceAccount";
  namespace: string;
  name: string;
}

/**
 * The object does not exist (the API server's 404, or absent from --local-objects). Its message is the
 * API server's, `configmap "name" not found` / `secret "name" not found`, which the kubelet passes on
 * verbatim into FailedMount and CreateContainerConfigError messages.
 */
export class ObjectNotFoundError extends Error {
  constructor(readonly ref: ObjectRef) {
    super(`${ref.kind.toLowerCase()} "${ref.name}" not found`);
    this.name = "ObjectNotFoundError";
  }
}

/** The object could not be read for another reason (forbidden, server unreachable, no source): retried. */
export class ObjectSourceError extends Error {
  constructor(
    readonly ref: ObjectRef,
    message: string,
  ) {
    super(message);
    this.name = "ObjectSourceError";
  }
}

/** What a projected serviceAccountToken source asks for (TokenRequestSpec, bound to the pod). */
export interface TokenRequest {
  serviceAccountName: string;
  /** Empty means the API server's own audiences. */
  audience: string;
  expirationSeconds: number;
}

export interface ServiceAccountToken {
  token: string;
  /** RFC 3339, as TokenRequestStatus.expirationTimestamp. */
  expirationTimestamp: string;
}

/**
 * Where the configMaps, secrets and service-account tokens of pods come from. The kubelet's
 * configmap/secret managers and token manager in one seam: a pod is registered before its volumes and
 * env are resolved and unregistered when it is gone (RegisterPod/UnregisterPod), so a source that
 * watches or caches keeps exactly what bound pods use. Implementations: the API server (src/objects),
 * --local-objects DIR, none; a fake in test/fakes.
 */
export interface ObjectSource {
  /** For messages: "the API server https://…", "--local-objects /etc/nodeagent/objects", "no object source". */
  readonly description: string;
  registerPod(pod: Pod): void;
  unregisterPod(pod: Pod): void;
  /** @throws ObjectNotFoundError, ObjectSourceError */
  getConfigMap(namespace: string, name: string): Promise<ConfigMap>;
  /** @throws ObjectNotFoundError, ObjectSourceError */
  getSecret(namespace: string, name: string): Promise<Secret>;
  /**
   * A token for the pod's service account, bound to the pod; cached, and requested anew once 80 % of
   * its lifetime has passed or it is older than 24 h (the kubelet's token manager).
   * @throws ObjectNotFoundError, ObjectSourceError
   */
  getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken>;
  /** An object some registered pod uses changed (or appeared): volumes are refreshed, waiting containers retried. */
  onChange(listener: (ref: ObjectRef) => void): () => void;
  close(): void;
}

/**
 * The services a container's service-link variables are made from (added for issue 15's service env):
 * the kubelet's serviceLister and serviceHasSynced (k/k@1.24.1 pkg/kubelet/kubelet.go NewMainKubelet).
 * With a kubeconfig, an informer over the services of every namespace (ApiServiceLister); without, the
 * kubelet's empty indexer that counts as synced (NoServiceLister); a fake in test/fakes.
 */
export interface ServiceLister {
  /** For messages: "services of the API server https://…", "no services (standalone)". */
  readonly description: string;
  /** The services have been listed at least once: until then an API pod's env cannot be made. */
  hasSynced(): boolean;
  /** Every service known, in every namespace, as last listed or watched. */
  list(): readonly Service[];
  close(): void;
}
