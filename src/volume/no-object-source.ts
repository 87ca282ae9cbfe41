// The ObjectSource of a standalone node without --local-objects: the kubelet's rule, static pods do
// not use API objects. A pod that names one waits (FailedMount, CreateContainerConfigError) with a
// message that says why and what to do; it never runs without the volume or variable.
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { ObjectSourceError, type ObjectRef, type ObjectSource, type ServiceAccountToken, type TokenRequest } from "./types";

/** Why objects cannot be read on a standalone node without --local-objects. */
export const STANDALONE_REASON =
  "without --kubeconfig there is no API server, and static and pushed pods may not use API objects (the kubelet's rule); start the agent with --local-objects DIR to serve ConfigMaps and Secrets from files";

export class NoObjectSource implements ObjectSource {
  constructor(
    private readonly reason = STANDALONE_REASON,
    readonly description = "no object source",
  ) {}

  registerPod(): void {}
  unregisterPod(): void {}

  private refuse(ref: ObjectRef): never {
    const what = ref.kind === "ServiceAccount" ? `a token for serviceaccount "${ref.name}"` : `${ref.kind.toLowerCase()} "${ref.name}"`;
    throw new ObjectSourceError(ref, `${what} cannot be read: ${this.reason}`);
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    return this.refuse({ kind: "ConfigMap", namespace, name });
  }

  async getSecret(namespace: string, name: string): Promise<Secret> {
    return this.refuse({ kind: "Secret", namespace, name });
  }

  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    return this.refuse({ kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName });
  }

  onChange(): () => void {
    return () => {};
  }

  close(): void {}
}
