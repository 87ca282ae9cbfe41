// The one fake ObjectSource (src/objects/types.ts), for the volume, env, pull-secret, manager and agent
// tests: configMaps and secrets kept in maps a test fills and changes (whole objects with
// setConfigMap/setSecret, or just their data with putConfigMap/putSecret), tokens issued from a counter
// with every request recorded, pods registered and unregistered as the real sources see them, change
// listeners notified when a test sets or deletes an object, failures a test can inject per object, and
// a log of the configMap/secret reads (to check what is read, and how often).
import type { ConfigMap, Pod, Secret } from "kubernetes-types/core/v1";
import { podRef } from "../../src/api/pod";
import type { Clock } from "../../src/util/clock";
import {
  ObjectNotFoundError,
  ObjectSourceError,
  type ObjectRef,
  type ObjectSource,
  type ServiceAccountToken,
  type TokenRequest,
} from "../../src/objects/types";

/** One token the fake issued: for which pod, what was asked, what was answered. */
export interface IssuedToken {
  podUID: string;
  namespace: string;
  podName: string;
  request: TokenRequest;
  token: ServiceAccountToken;
}

const key = (namespace: string, name: string) => `${namespace}/${name}`;

export class FakeObjectSource implements ObjectSource {
  readonly description: string;
  readonly configMaps = new Map<string, ConfigMap>();
  readonly secrets = new Map<string, Secret>();
  /** Service accounts that exist ("ns/name"); when undefined every service account exists. */
  serviceAccounts: Set<string> | undefined;
  /** Tokens issued, in order. */
  readonly issued: IssuedToken[] = [];
  /** Registered pods by UID. */
  readonly registered = new Map<string, Pod>();
  /** Calls made, in order: "getConfigMap ns/name", "getSecret ns/name", "token ns/sa", "register uid"… */
  readonly calls: string[] = [];
  /** ConfigMap and Secret reads, in order, keyed as `failures` is: "ConfigMap/ns/name", "Secret/ns/name". */
  readonly reads: string[] = [];
  /** Objects whose reads fail with ObjectSourceError (say, a 403 from the Node authorizer): "Kind/ns/name" → message. */
  readonly failures = new Map<string, string>();
  closed = false;
  private listeners = new Set<(ref: ObjectRef) => void>();
  private tokenSeq = 0;

  constructor(
    private readonly clock?: Clock,
    description = "a fake object source",
  ) {
    this.description = description;
  }

  registerPod(pod: Pod): void {
    const uid = podRef(pod).uid;
    this.calls.push(`register ${uid}`);
    this.registered.set(uid, pod);
  }
  unregisterPod(pod: Pod): void {
    const uid = podRef(pod).uid;
    this.calls.push(`unregister ${uid}`);
    this.registered.delete(uid);
  }

  private failure(kind: ObjectRef["kind"], namespace: string, name: string): void {
    const message = this.failures.get(`${kind}/${namespace}/${name}`);
    if (message !== undefined) throw new ObjectSourceError({ kind, namespace, name }, message);
  }

  async getConfigMap(namespace: string, name: string): Promise<ConfigMap> {
    this.calls.push(`getConfigMap ${key(namespace, name)}`);
    this.reads.push(`ConfigMap/${key(namespace, name)}`);
    this.failure("ConfigMap", namespace, name);
    const cm = this.configMaps.get(key(namespace, name));
    if (!cm) throw new ObjectNotFoundError({ kind: "ConfigMap", namespace, name });
    return structuredClone(cm);
  }

  async getSecret(namespace: string, name: string): Promise<Secret> {
    this.calls.push(`getSecret ${key(namespace, name)}`);
    this.reads.push(`Secret/${key(namespace, name)}`);
    this.failure("Secret", namespace, name);
    const s = this.secrets.get(key(namespace, name));
    if (!s) throw new ObjectNotFoundError({ kind: "Secret", namespace, name });
    return structuredClone(s);
  }

  /** A new token per call ("token-1", "token-2"…), expiring expirationSeconds after the clock's now. */
  async getServiceAccountToken(pod: Pod, req: TokenRequest): Promise<ServiceAccountToken> {
    const r = podRef(pod);
    this.calls.push(`token ${key(r.namespace, req.serviceAccountName)}`);
    this.failure("ServiceAccount", r.namespace, req.serviceAccountName);
    if (this.serviceAccounts && !this.serviceAccounts.has(key(r.namespace, req.serviceAccountName))) {
      throw new ObjectNotFoundError({ kind: "ServiceAccount", namespace: r.namespace, name: req.serviceAccountName });
    }
    const now = this.clock?.now() ?? Date.now();
    const token: ServiceAccountToken = {
      token: `token-${++this.tokenSeq}`,
      expirationTimestamp: new Date(now + req.expirationSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    };
    this.issued.push({ podUID: r.uid, namespace: r.namespace, podName: r.name, request: { ...req }, token });
    return token;
  }

  onChange(listener: (ref: ObjectRef) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.listeners.clear();
  }

  /** Number of change listeners subscribed. */
  listenerCount(): number {
    return this.listeners.size;
  }

  /** Tells every listener that the object changed (setConfigMap/setSecret/delete* do it themselves). */
  notify(ref: ObjectRef): void {
    for (const l of [...this.listeners]) l(ref);
  }

  /** Creates or replaces a ConfigMap (its namespace defaults to "default") and notifies the listeners. */
  setConfigMap(cm: ConfigMap): void {
    const namespace = cm.metadata?.namespace || "default";
    const name = cm.metadata?.name ?? "";
    this.configMaps.set(key(namespace, name), { ...cm, metadata: { ...cm.metadata, namespace, name } });
    this.notify({ kind: "ConfigMap", namespace, name });
  }

  /** Creates or replaces a Secret; `stringData` values are folded into base64 `data` as the API server does. */
  setSecret(secret: Secret): void {
    const namespace = secret.metadata?.namespace || "default";
    const name = secret.metadata?.name ?? "";
    const data: Record<string, string> = { ...secret.data };
    for (const [k, v] of Object.entries(secret.stringData ?? {})) data[k] = Buffer.from(v).toString("base64");
    const { stringData: _omit, ...rest } = secret;
    this.secrets.set(key(namespace, name), { ...rest, metadata: { ...secret.metadata, namespace, name }, data });
    this.notify({ kind: "Secret", namespace, name });
  }

  /** setConfigMap for a ConfigMap given by its data alone. */
  putConfigMap(namespace: string, name: string, data: Record<string, string>): void {
    this.setConfigMap({ apiVersion: "v1", kind: "ConfigMap", metadata: { namespace, name }, data });
  }

  /** setSecret for a Secret given by its data as text (stored base64-encoded, as the API serves it). */
  putSecret(namespace: string, name: string, data: Record<string, string>, type = "Opaque"): void {
    this.setSecret({ apiVersion: "v1", kind: "Secret", metadata: { namespace, name }, type, stringData: data });
  }

  deleteConfigMap(namespace: string, name: string): void {
    this.configMaps.delete(key(namespace, name));
    this.notify({ kind: "ConfigMap", namespace, name });
  }

  deleteSecret(namespace: string, name: string): void {
    this.secrets.delete(key(namespace, name));
    this.notify({ kind: "Secret", namespace, name });
  }
}
