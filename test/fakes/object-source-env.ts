// A minimal in-memory ObjectSource for the env and pull-secret tests: configMaps and secrets a test
// puts and deletes, a NotFound (with the API server's message) for the others, an error to inject per
// object, change listeners, and a count of the reads (to check what is read, and how often).
// (The full fake with tokens and pod registration is test/fakes/object-source.ts, written in parallel.)
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { ObjectNotFoundError, ObjectSourceError, type ObjectRef, type ObjectSource, type ServiceAccountToken, type TokenRequest } from "../../src/volume/types";

export class FakeEnvObjectSource implements ObjectSource {
  readonly description = "the fake object source";
  readonly configMaps = new Map<string, ConfigMap>();
  readonly secrets = new Map<string, Secret>();
  /** Errors (other than NotFound) to throw for an object, keyed "ConfigMap/ns/name". */
  readonly failures = new Map<string, string>();
  /** Every read, as "ConfigMap/ns/name". */
  readonly reads: string[] = [];
  private readonly listeners = new Set<(ref: ObjectRef) => void>();

  putConfigMap(namespace: string, name: string, data: Record<string, string>): void {
    this.configMaps.set(`${namespace}/${name}`, { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace, name }, data });
    this.changed({ kind: "ConfigMap", namespace, name });
  }

  /** Values are given as text and stored base64-encoded, as the API serves them. */
  putSecret(namespace: string, name: string, data: Record<string, string>, type = "Opaque"): void {
    const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]));
    this.secrets.set(`${namespace}/${name}`, { apiVersion: "v1", kind: "Secret", metadata: { namespace, name }, type, data: encoded });
    this.changed({ kind: "Secret", namespace, name });
  }

  registerPod(_pod: Pod): void {}
  unregisterPod(_pod: Pod): void {}

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    return this.read({ kind: "ConfigMap", namespace, name }, this.configMaps);
  }

  async getSecret(namespace: string, name: string): Promise<Secret> {
    return this.read({ kind: "Secret", namespace, name }, this.secrets);
  }

  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    throw new ObjectSourceError({ kind: "ServiceAccount", namespace: pod.metadata?.namespace ?? "default", name: req.serviceAccountName }, "tokens are not served by the env fake");
  }

  onChange(listener: (ref: ObjectRef) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
  }

  private read<T>(ref: ObjectRef, store: Map<string, T>): T {
    const key = `${ref.kind}/${ref.namespace}/${ref.name}`;
    this.reads.push(key);
    const failure = this.failures.get(key);
    if (failure) throw new ObjectSourceError(ref, failure);
    const obj = store.get(`${ref.namespace}/${ref.name}`);
    if (!obj) throw new ObjectNotFoundError(ref);
    return structuredClone(obj);
  }

  private changed(ref: ObjectRef): void {
    for (const l of this.listeners) l(ref);
  }
}
