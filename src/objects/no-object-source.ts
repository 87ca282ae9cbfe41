// NoObjectSource: standalone without --local-objects. The kubelet's rule stands: a static pod may not
// name API objects (k/k@1.24.1 pkg/apis/core/validation ValidatePodCreate with
// PreventStaticPodAPIReferences; `staticpod lint` reports it before the agent runs). A pod that still
// gets here (pushed, or the check bypassed) waits with a message that says what it names and the two
// ways to provide it, instead of running without it.
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { ObjectSourceError, type ObjectRef, type ObjectSource, type ServiceAccountToken, type TokenRequest } from "./types";

/** Why there is no `kind` "name": it is an API object and the agent has neither an API server nor a folder of them. */
export function noObjectSourceMessage(ref: ObjectRef): string {
  const what = `${ref.kind.toLowerCase()} "${ref.name}" (namespace ${ref.namespace})`;
  if (ref.kind === "ServiceAccount") {
    return `the pod needs a token of ${what}, an API object, and this agent runs without an API server: run it with --kubeconfig`;
  }
  return `the pod names ${what}, an API object, and this agent runs without an API server: run it with --kubeconfig, or with --local-objects DIR holding a ${ref.kind} manifest named "${ref.name}"`;
}

export class NoObjectSource implements ObjectSource {
  readonly description = "no object source";

  registerPod(_pod: Pod): void {}
  unregisterPod(_pod: Pod): void {}

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    const ref: ObjectRef = { kind: "ConfigMap", namespace, name };
    throw new ObjectSourceError(ref, noObjectSourceMessage(ref));
  }

  async getSecret(namespace: string, name: string): Promise<Secret> {
    const ref: ObjectRef = { kind: "Secret", namespace, name };
    throw new ObjectSourceError(ref, noObjectSourceMessage(ref));
  }

  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    const ref: ObjectRef = { kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName };
    throw new ObjectSourceError(ref, noObjectSourceMessage(ref));
  }

  onChange(_listener: (ref: ObjectRef) => void): () => void {
    return () => {};
  }

  close(): void {}
}
